/**
 * What the page reads of a client's published key source (docs/openapi/registry.json): the
 * source, its state, and per key what names it. Types only.
 */
import type { ClientView, KeyView } from '../lambda/registry/view-types';
import type { KeySource } from './signet-core';

/** A recorded fetch error. */
export interface KeySourceErrorView {
  readonly code: string;
  readonly message: string;
  readonly at?: string;
  /** The HTTP status, when the source answered. */
  readonly status?: number;
}

/** The state of a client's key source, as the refresher and the registry record it. */
export interface KeySourceStatusView {
  /** What is fetched (a signature agent's directory URL). */
  readonly url: string;
  readonly lastFetchAt?: string;
  readonly nextFetchAt?: string;
  readonly lastSuccessAt?: string;
  readonly failingSince?: string;
  readonly lastError?: KeySourceErrorView;
  /** Keys of the last fetch that are not used, each with why. */
  readonly refusedKeys?: ReadonlyArray<{ readonly kid?: string; readonly thumbprint?: string; readonly reason: string }>;
  /** Until when the keys verify if no fetch succeeds. */
  readonly keptUntil?: string;
}

/** A key as listed, with what names a published one. */
export type SourcedKeyView = KeyView & {
  readonly thumbprint?: string;
  readonly published?: boolean;
  readonly kid?: string;
  readonly notBefore?: string;
  readonly expires?: string;
};

/** A client, with its key source when it has one. */
export type SourcedClientView = Omit<ClientView, 'keys'> & {
  readonly keys: readonly SourcedKeyView[];
  readonly keySource?: KeySource;
  readonly keySourceStatus?: KeySourceStatusView;
};

/** Keys named by a refresh: counts, or the keys themselves. */
type RefreshKeys = number | ReadonlyArray<string | { readonly kid?: string; readonly thumbprint?: string }>;

/** POST /registry/clients/{clientId}/keys/refresh. */
export interface KeyRefreshAnswer {
  readonly client: ClientView;
  readonly refresh: { readonly ok: boolean; readonly added: RefreshKeys; readonly removed: RefreshKeys; readonly unchanged: RefreshKeys | boolean; readonly error?: KeySourceErrorView };
}
