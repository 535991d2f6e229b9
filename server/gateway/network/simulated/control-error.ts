// A refusal of the control API, answered as {"error":{"code","message"}} with its HTTP status.
export class ControlError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
