import { DOCUMENT_PATH, documentText } from "./openapi-artifacts.ts";

await Deno.writeTextFile(DOCUMENT_PATH, documentText());
console.log(`wrote ${DOCUMENT_PATH.pathname}`);
