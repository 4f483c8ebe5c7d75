/**
 * The last-key rule on its own, with no imports, so the client portal bundles the very rule the
 * registry refuses with (`last_key`, ./key-rollover.ts) and can say why a key cannot be removed
 * before anyone tries.
 */

/**
 * Whether removing `target` would leave the client without a key, or take away its last active
 * key (an expired key may go while an active one stays).
 * @param isActive whether a key verifies now (the registry: no not-after, or one still ahead)
 */
export function removalLeavesNoActiveKey<K>(keys: readonly K[], target: K, isActive: (key: K) => boolean): boolean {
  const remaining = keys.filter((k) => k !== target);
  return remaining.length === 0 || (isActive(target) && !remaining.some(isActive));
}
