import { CLIENT_PATH, clientText, DOCUMENT_PATH, SCHEMA_PATH, schemaText } from "./openapi-artifacts.ts";

const document = await Deno.readTextFile(DOCUMENT_PATH);
await Deno.writeTextFile(SCHEMA_PATH, await schemaText(document));
console.log(`wrote ${SCHEMA_PATH.pathname}`);
await Deno.writeTextFile(CLIENT_PATH, clientText(document));
console.log(`wrote ${CLIENT_PATH.pathname}`);
