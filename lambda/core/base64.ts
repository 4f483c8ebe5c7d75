/**
 * Base64 for the core's byte sequences, where the core runs: Node's Buffer in Lambda, the CLI and
 * the local gateway (fast, and what the verifier's fast paths were measured with), the browser's
 * atob/btoa in the portal, which bundles the core (portal/signet-core.ts) and has no Buffer.
 * Both read and write the standard alphabet with padding (RFC 4648 §4).
 */

type NodeBuffer = Uint8Array<ArrayBuffer> & { toString(encoding: 'base64'): string };
interface NodeBufferClass {
  from(text: string, encoding: 'base64'): NodeBuffer;
  from(buffer: ArrayBufferLike, byteOffset: number, length: number): NodeBuffer;
}

/** Node's Buffer, or undefined in a browser. */
const NODE_BUFFER = (globalThis as { Buffer?: NodeBufferClass }).Buffer;

/** Standard Base64 of `bytes`, padded. */
export function encodeBase64(bytes: Uint8Array): string {
  if (NODE_BUFFER !== undefined) return NODE_BUFFER.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * The bytes of Base64 `text`. Callers check the alphabet and padding first or afterwards (Node's
 * decoder skips what is not Base64; the browser's refuses it, which then reads as no bytes).
 */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  if (NODE_BUFFER !== undefined) return NODE_BUFFER.from(text, 'base64');
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return new Uint8Array(0);
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const BASE64_BODY = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Bare Base64 as people paste a DER key (whitespace and line breaks allowed): its bytes, or
 * undefined when it is not that (too short, not the alphabet, not padded to a multiple of four).
 */
export function decodeBareBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  const compact = text.replace(/\s+/g, '');
  if (compact.length < 16 || compact.length % 4 !== 0 || !BASE64_BODY.test(compact)) return undefined;
  return decodeBase64(compact);
}
