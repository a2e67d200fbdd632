/** The examples of one operation: its request body, and a response body per status they show. */
export interface OperationExamples {
  /** The request body (JSON, or the fields of a form body). */
  request?: unknown;
  /** Status -> response body: the success answer and the commonest error, at least. */
  responses: Record<number, unknown>;
}

/** Operation examples keyed `METHOD /path`, the path as the OpenAPI document names the operation. */
export type ExampleTable = Record<string, OperationExamples>;
