/**
 * What `POST /registry/clients/{clientId}/keys/refresh` answers (docs/openapi/registry.json,
 * KeyRefreshResponse): the client as it is now, and what the fetch did. Types only.
 */
import type { ClientView } from '../lambda/registry/view-types';

export interface KeyRefreshAnswer {
  readonly client: ClientView;
  readonly refresh: {
    /** Whether the fetch succeeded; a failed one keeps the keys and records its error on the client. */
    readonly ok: boolean;
    /** Fingerprints of the keys the source published that the client did not have. */
    readonly added: readonly string[];
    /** Fingerprints of the keys gone from the source: they stopped verifying now. */
    readonly removed: readonly string[];
    /** The fetch found the keys the client already had. */
    readonly unchanged: boolean;
    readonly error?: { readonly code: string; readonly message: string; readonly status?: number };
  };
}
