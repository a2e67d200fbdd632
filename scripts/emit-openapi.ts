import {
  DOCUMENT_PATH,
  documentText,
  OPERATOR_DOCUMENT_PATH,
  operatorDocument,
} from "./openapi-artifacts.ts";

await Deno.writeTextFile(DOCUMENT_PATH, documentText());
console.log(`wrote ${DOCUMENT_PATH.pathname}`);
await Deno.writeTextFile(OPERATOR_DOCUMENT_PATH, operatorDocument());
console.log(`wrote ${OPERATOR_DOCUMENT_PATH.pathname}`);
