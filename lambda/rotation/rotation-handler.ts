/**
 * The rotation function's door: checks the event, runs the step, logs and counts the outcome,
 * and rethrows failures so Secrets Manager sees the step fail (and the function's `Errors`
 * metric, which RotatingSigningKey.metricRotationFailures alarms on, counts it).
 */
import { KeyRotation, reasonOf } from './key-rotation';
import { parseRotationEvent } from './rotation-protocol';
import { RotationLogger } from './rotation-types';

/** Metric names the rotation function emits (namespace `Signet`, unit Count). */
export const ROTATION_METRICS = {
  /** A finishSecret that made a new key AWSCURRENT: one per completed rotation. */
  succeeded: 'RotationSucceeded',
  /** Any step that failed (metadata `step` names it). The current key still works. */
  failed: 'RotationFailed',
} as const;

/** Time kept back from the Lambda's remaining time when finishSecret waits for authorizer caches, in ms. @default 10_000 */
export const SETTLE_MARGIN_MS = 10_000;

/** What the door needs from Powertools Metrics (it counts; the Lambda entry publishes: lambda/handlers/entry.ts). */
export interface RotationMetrics {
  addMetric(name: string, unit: 'Count', value: number): unknown;
  addMetadata(key: string, value: string): unknown;
}

export interface RotationHandlerDeps {
  readonly rotation: KeyRotation;
  readonly logger: RotationLogger;
  /** @default - no metrics */
  readonly metrics?: RotationMetrics;
}

/** The part of the Lambda context the door reads. */
export interface RotationContext {
  getRemainingTimeInMillis(): number;
}

/**
 * Builds the handler.
 * @example
 * const runStep = createRotationHandler({ rotation, logger, metrics });
 */
export function createRotationHandler(deps: RotationHandlerDeps): (event: unknown, context?: RotationContext) => Promise<void> {
  return async (event, context) => {
    const raw = typeof event === 'object' && event !== null ? (event as Record<string, unknown>) : {};
    const where = { step: shortString(raw.Step), secretId: shortString(raw.SecretId), versionId: shortString(raw.ClientRequestToken) };
    try {
      const parsed = parseRotationEvent(event);
      const remainingMs = context?.getRemainingTimeInMillis();
      const result = await deps.rotation.run(parsed, remainingMs === undefined ? {} : { maxSettleWaitMs: remainingMs - SETTLE_MARGIN_MS });
      deps.logger.info('rotation step completed', { ...where, outcome: result.outcome, clientId: result.clientId, fingerprint: result.fingerprint });
      if (result.step === 'finishSecret' && result.outcome === 'done') {
        deps.metrics?.addMetric(ROTATION_METRICS.succeeded, 'Count', 1);
      }
    } catch (error) {
      deps.logger.error('rotation step failed; the service tries it again (the step logged what it left: a failed step leaves the current key verifying)', { ...where, reason: reasonOf(error) });
      deps.metrics?.addMetadata('step', where.step ?? 'unknown');
      deps.metrics?.addMetric(ROTATION_METRICS.failed, 'Count', 1);
      throw error;
    }
  };
}

/** An event field for a log line: strings only, bounded (the event comes from the service, but is input). */
function shortString(value: unknown): string | undefined {
  return typeof value === 'string' ? value.slice(0, 256) : undefined;
}
