/**
 * Lambda cost of the authorizer on paper: per million authorized requests, and per month at a
 * sustained rate, on arm64, from a measured handler duration; and the CloudWatch Logs ingestion of
 * what the handler writes, from the bytes measured per allowed request.
 *
 * Prices (US East, N. Virginia; arm64; first pricing tier):
 *   - duration: $0.0000133334 per GB-second (first 7.5 billion GB-s per month), billed per 1 ms,
 *     rounded up — https://cloudchipr.com/blog/aws-lambda-pricing ("ARM Pricing"), and the AWS
 *     Compute Blog "Introducing tiered pricing for AWS Lambda";
 *   - requests: $0.20 per million — https://aws.amazon.com/blogs/aws/new-for-aws-lambda-1ms-billing-granularity-adds-cost-savings/
 *   - rounding up to the nearest 1 ms: https://aws.amazon.com/lambda/pricing/ ("rounded up to the
 *     nearest 1 ms").
 *   - CloudWatch Logs: $0.50 per GB of standard log ingestion (the log lines and the EMF
 *     metrics alike) — https://aws.amazon.com/cloudwatch/pricing/ ("Logs", "Collect (Data
 *     Ingestion)", Standard); GB taken as 10⁹ bytes (with 2³⁰ the figures are 7% lower).
 * The free tier is left out.
 */

/** USD per GB-second, arm64, us-east-1, first 7.5 billion GB-s per month. */
export const ARM64_PRICE_PER_GB_S = 0.0000133334;
/** USD per million requests (both architectures). */
export const PRICE_PER_MILLION_REQUESTS = 0.2;
/** The authorizer's memory size (lib/signature-authorizer.ts default `memorySizeMb`). */
export const AUTHORIZER_MEMORY_MB = 512;
/**
 * Lambda gives a function CPU in proportion to its memory: "At 1,769 MB, a function has the
 * equivalent of one vCPU" (https://docs.aws.amazon.com/lambda/latest/dg/resource-model.html).
 * At 512 MB a CPU-bound handler gets about
 * 512/1769 of a vCPU, so it runs about 3.5 times longer than on a dedicated core here.
 */
export const FULL_VCPU_MEMORY_MB = 1769;

export interface CostEstimate {
  readonly measuredP50Ms: number;
  /** The p50 scaled to the CPU share of the memory size. */
  readonly estimatedLambdaMs: number;
  readonly billedMs: number;
  readonly memoryMb: number;
  readonly durationUsdPerMillion: number;
  readonly requestUsdPerMillion: number;
  readonly totalUsdPerMillion: number;
  readonly rps: number;
  readonly requestsPerMonth: number;
  readonly usdPerMonth: number;
  /** Concurrent execution environments needed at `rps` (Little's law on the billed duration). */
  readonly concurrency: number;
}

/** The estimate for a measured warm p50 (ms, on one dedicated core) at `rps` requests per second. */
export function estimateLambdaCost(measuredP50Ms: number, rps = 10_000, memoryMb = AUTHORIZER_MEMORY_MB): CostEstimate {
  const cpuShare = Math.min(1, memoryMb / FULL_VCPU_MEMORY_MB);
  const estimatedLambdaMs = measuredP50Ms / cpuShare;
  const billedMs = Math.max(1, Math.ceil(estimatedLambdaMs));
  const gbSecondsPerMillion = 1e6 * (billedMs / 1000) * (memoryMb / 1024);
  const durationUsdPerMillion = gbSecondsPerMillion * ARM64_PRICE_PER_GB_S;
  const totalUsdPerMillion = durationUsdPerMillion + PRICE_PER_MILLION_REQUESTS;
  const requestsPerMonth = rps * 86_400 * 30;
  return {
    measuredP50Ms,
    estimatedLambdaMs,
    billedMs,
    memoryMb,
    durationUsdPerMillion,
    requestUsdPerMillion: PRICE_PER_MILLION_REQUESTS,
    totalUsdPerMillion,
    rps,
    requestsPerMonth,
    usdPerMonth: (requestsPerMonth / 1e6) * totalUsdPerMillion,
    concurrency: Math.ceil(rps * (billedMs / 1000)),
  };
}

/** USD per GB of CloudWatch Logs standard ingestion, us-east-1 (https://aws.amazon.com/cloudwatch/pricing/). */
export const LOG_INGESTION_PRICE_PER_GB = 0.5;

export interface LogIngestionEstimate {
  /** Bytes the handler writes per allowed request, on average (log lines and EMF). */
  readonly bytesPerRequest: number;
  readonly rps: number;
  /** GB (10⁹ bytes) ingested in 30 days at `rps`. */
  readonly gbPerMonth: number;
  readonly usdPerMonth: number;
}

/** CloudWatch Logs ingestion in 30 days at `rps` requests per second of `bytesPerRequest` each. */
export function estimateLogIngestion(bytesPerRequest: number, rps = 10_000): LogIngestionEstimate {
  const gbPerMonth = (bytesPerRequest * rps * 86_400 * 30) / 1e9;
  return { bytesPerRequest, rps, gbPerMonth, usdPerMonth: gbPerMonth * LOG_INGESTION_PRICE_PER_GB };
}
