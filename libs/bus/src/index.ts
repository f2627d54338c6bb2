/**
 * @toolhub/bus — how ToolHub services talk: request/reply, publish/subscribe and durable events.
 * Any new export added here becomes public API; test helpers live in `@toolhub/bus/testing`.
 */
export type {
  Bus,
  BusConnection,
  BusMessage,
  BusReply,
  ConsumeOptions,
  ConsumerLag,
  EventConsumer,
  EventMessage,
  Headers,
  MessageHandler,
  PublishEventOptions,
  RequestHandler,
  RequestOptions,
  SubscribeOptions,
  Subscription,
} from './bus';
export { BusError, type BusErrorCode, isBusError } from './errors';
export type { HandlerErrorCallback, HandlerErrorContext } from './handler-error';
export { InProcessBus, type InProcessBusOptions } from './in-process-bus';
export { DEFAULT_REQUESTS_PER_TURN, NatsBus, type NatsBusOptions, type NatsBusStatus } from './nats-bus';
export { type ConnectRetryOptions, connectNatsBusWithRetry } from './nats-connect-retry';
export { natsStatusLogger, type NatsStatusLogger, permissionViolationOf } from './nats-status-log';
export { inboxPrefixOf, natsAuthorizationConfig, natsPermissions, natsUserEntry, type NatsServiceRole, type NatsServiceUser } from './nats-permissions';
export { natsAuthenticator, type NatsCredentials, natsCredentialsFromEnv } from './nats-credentials';
