"""The wire models, one module per resource: pure pydantic (the SDK imports them too); request
models forbid unknown fields and coerce nothing."""
