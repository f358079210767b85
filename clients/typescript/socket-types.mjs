// Types of the WebSocket's messages (openapi/asyncapi.json), made by the same pinned
// openapi-typescript as the HTTP API's: its message schemas, read as an OpenAPI
// document's components. `npm run generate` runs this after the HTTP types.
import { readFileSync, writeFileSync } from "node:fs";
import openapiTS, { astToString } from "openapi-typescript";

const [source, output] = process.argv.slice(2);
const asyncapi = JSON.parse(readFileSync(source, "utf-8"));
const document = {
  openapi: "3.1.0",
  info: { title: asyncapi.info.title, version: asyncapi.info.version },
  paths: {},
  components: { schemas: asyncapi.components.schemas },
};
const ast = await openapiTS(document);
writeFileSync(output, astToString(ast));
