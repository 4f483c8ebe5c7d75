/**
 * What every entry's metrics carry: the service, and in Lambda the function's name, so that two
 * deployments in one account and region publish apart and each stack's alarms read its own.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { powertoolsFor } from '../../lambda/handlers/entry';
import { FUNCTION_DIMENSION, METRICS_NAMESPACE, SERVICE_NAMES } from '../../lambda/observability';
import { captureOutput } from '../authorizer/support';

async function emfOf(functionName: string | undefined): Promise<Record<string, unknown>> {
  const { metrics } = powertoolsFor('authorizer', functionName);
  const { lines } = await captureOutput(async () => {
    metrics.addMetric('Allowed', MetricUnit.Count, 1);
    metrics.publishStoredMetrics();
  });
  const emf = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => '_aws' in line);
  expect(emf).toHaveLength(1);
  return emf[0];
}

test("in Lambda, the function's name is a dimension beside the service; elsewhere (npm start, tests) the service alone", async () => {
  const deployed = await emfOf('OrdersStack-AuthorizerFunction0A0AD979-x1');
  expect(deployed).toMatchObject({
    service: SERVICE_NAMES.authorizer,
    [FUNCTION_DIMENSION]: 'OrdersStack-AuthorizerFunction0A0AD979-x1',
    Allowed: 1,
    _aws: { CloudWatchMetrics: [{ Namespace: METRICS_NAMESPACE, Dimensions: [['service', FUNCTION_DIMENSION]] }] },
  });
  const local = await emfOf(undefined);
  expect(local).toMatchObject({ _aws: { CloudWatchMetrics: [{ Dimensions: [['service']] }] } });
  expect(local).not.toHaveProperty(FUNCTION_DIMENSION);
});
