/** @toolhub/runtime — process lifecycle shared by every app. */
export { type ShutdownLogger, type ShutdownOptions, type ShutdownStep, onShutdown } from './shutdown';
