"""The Agents Club gateway: a FastAPI service over the engine, with Redis as its only state."""
