/**
 * NATS subjects of async runs (StartRun and the rest). The queue is a JetStream work-queue stream of
 * its own, apart from the events stream: a queued run is work to be done once, not history.
 */
import { SUBJECT_ROOT } from './subjects';

/** Name of the JetStream work-queue stream holding queued runs (one message per run, its id). */
export const RUNS_STREAM = 'TOOLHUB_RUNS';

/** Every queue of {@link RUNS_STREAM}: `toolhub.v1.runs.queue.>`. */
export const RUNS_QUEUE_WILDCARD = `${SUBJECT_ROOT}.runs.queue.>`;

/**
 * `toolhub.v1.runs.queue.<queue>`: the queue of the dispatchers sharing one run store (`queue` is
 * derived from the store's address), so dispatchers of another store on the same NATS never take
 * runs whose records they cannot read.
 */
export function runsQueueSubject(queue: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(queue)) throw new Error(`runsQueueSubject: queue ${JSON.stringify(queue)} is not a subject token`);
  return `${SUBJECT_ROOT}.runs.queue.${queue}`;
}

/**
 * `toolhub.v1.runs.updates`: fan-out (core NATS, not stored) of every change of a run (a
 * WatchRunResponse), so a WatchRun served by one dispatcher follows a run executed by another.
 */
export const RUNS_UPDATES_SUBJECT = `${SUBJECT_ROOT}.runs.updates`;

/** `toolhub.v1.runs.cancel`: fan-out of a run id whose cancellation was asked for; the worker holding it aborts it. */
export const RUNS_CANCEL_SUBJECT = `${SUBJECT_ROOT}.runs.cancel`;

/**
 * `toolhub.v1.runs.owner.<instance>`: request/reply served by one dispatcher only ("do you still
 * run this run id?"). NATS answers "no responders" at once when that dispatcher is gone, which is
 * how a redelivered run tells a dead worker from a slow one.
 */
export function runOwnerSubject(instanceId: string): string {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(instanceId)) throw new Error(`runOwnerSubject: instance id ${JSON.stringify(instanceId)} is not a subject token`);
  return `${SUBJECT_ROOT}.runs.owner.${instanceId}`;
}
