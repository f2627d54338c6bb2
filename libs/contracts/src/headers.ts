/**
 * Header names carried on NATS messages between services. gRPC metadata keys used at the edge are
 * here too, so both ends agree on spelling.
 */

/** W3C trace context (https://www.w3.org/TR/trace-context/). */
export const HEADER_TRACEPARENT = 'traceparent';
export const HEADER_TRACESTATE = 'tracestate';
/** Absolute deadline of the caller, unix epoch milliseconds, decimal. */
export const HEADER_DEADLINE = 'toolhub-deadline';
/** Request id, echoed into logs and events. */
export const HEADER_REQUEST_ID = 'toolhub-request-id';
/** JetStream de-duplication id. */
export const HEADER_MSG_ID = 'Nats-Msg-Id';
/** Set on an error reply; the value is the ToolHub error code name (e.g. `not_found`). */
export const HEADER_ERROR_CODE = 'Nats-Service-Error-Code';
/** Human-readable error message on an error reply. */
export const HEADER_ERROR = 'Nats-Service-Error';
/** gRPC trailer holding a serialized toolhub.v1.ErrorInfo. */
export const GRPC_ERROR_TRAILER = 'toolhub-error-bin';
/**
 * Set by the dispatcher on a run request: the adapter replica publishes its instance id there as
 * soon as it accepts the call, so the dispatcher knows which replica holds each in-flight call and
 * can fail those calls at once (UNAVAILABLE) when that replica dies.
 */
export const HEADER_ACK_SUBJECT = 'toolhub-ack-subject';
/**
 * Set by the dispatcher on a run request only when someone listens to the call's progress: the
 * subject (`toolhub.v1.progress.<provider>.<dispatcher>.<call>`, see `progressSubject`) where the
 * adapter replica publishes RunToolProgress updates while the call runs. Absent: send none.
 */
export const HEADER_PROGRESS_SUBJECT = 'toolhub-progress-subject';
