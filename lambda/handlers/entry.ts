/**
 * What every Signet Lambda entry shares: the Powertools logger and metrics of its function, named
 * from lambda/observability.ts, and the one place a function publishes the metrics an invocation
 * counted. An entry reads like
 *
 * @example
 * const powertools = powertoolsFor('registry');
 * export const handler = flushingMetrics(powertools.metrics, createRegistry(loadConfig(), powertools));
 *
 * The factories never publish metrics themselves: they count, the entry flushes.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { FUNCTION_DIMENSION, METRICS_NAMESPACE, SERVICE_NAMES } from '../observability';

/** A function's Powertools logger and metrics. */
export interface Powertools {
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/**
 * The logger and metrics of the function `service` names, built once per cold start. Its metrics
 * carry the function's name (Lambda's `AWS_LAMBDA_FUNCTION_NAME`) as a dimension when it has one.
 */
export function powertoolsFor(service: keyof typeof SERVICE_NAMES, functionName: string | undefined = process.env.AWS_LAMBDA_FUNCTION_NAME): Powertools {
  const serviceName = SERVICE_NAMES[service];
  const logger = new Logger({ serviceName });
  // Metrics' own warnings go through the logger, so every line the function writes is JSON.
  const defaultDimensions = functionName ? { [FUNCTION_DIMENSION]: functionName } : undefined;
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName, logger, defaultDimensions });
  return { logger, metrics };
}

/**
 * `handler`, publishing what it counted (one EMF line) when it returns or throws. An invocation
 * that counted nothing writes nothing (Powertools would warn about an empty flush).
 */
export function flushingMetrics<E, C, R>(metrics: Metrics, handler: (event: E, context?: C) => Promise<R>): (event: E, context?: C) => Promise<R> {
  return async (event, context) => {
    try {
      return await handler(event, context);
    } finally {
      if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
    }
  };
}
