/**
 * The caller's address from an API Gateway event.
 *
 * Only `requestContext.http.sourceIp` (HTTP API) and `requestContext.identity.sourceIp` (REST)
 * are used: API Gateway sets them to the TCP peer (the client, even behind CloudFront), while
 * `X-Forwarded-For` is client-settable and never read here. The value is validated because it is
 * not always an address: console tests send `test-invoke-source-ip`, documentation examples `IP`
 * or `...`. Anything that is not an IPv4 or IPv6 address becomes `undefined`, which the
 * allow-list never admits.
 */
import { normaliseCallerIp } from '../core/ip-policy';

/** The canonical caller address (IPv4-mapped IPv6 as IPv4, IPv6 lower-cased), or undefined. */
export function callerIpOf(sourceIp: unknown): string | undefined {
  return normaliseCallerIp(typeof sourceIp === 'string' ? sourceIp : undefined)?.address;
}
