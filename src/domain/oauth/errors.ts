/** An OAuth refusal in the RFC shape `{ error, error_description }` (the surfaces render it flat). */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
    readonly retryAfterSeconds?: number,
  ) {
    super(description);
    this.name = "OAuthError";
  }
}
