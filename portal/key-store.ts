/**
 * Remembering the admin's key on this device, only when the user asks. What is stored is the
 * non-extractable CryptoKey itself (IndexedDB keeps CryptoKey objects as they are): the key
 * material cannot be read back by any script, this one included; it can only sign. Nothing is
 * stored otherwise, and "Forget" deletes it.
 */

const DB_NAME = 'signet-portal';
const STORE = 'signing-keys';
const ENTRY = 'admin';

interface RememberedKey {
  keyId: string;
  fingerprint: string;
  privateKey: CryptoKey;
}

/**
 * Opens the database. Only storing creates it: looking for a remembered key on a device where
 * none was ever stored leaves nothing behind.
 */
function open(create: boolean): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    if (typeof indexedDB === 'undefined') {
      reject(new Error('This browser has no IndexedDB, so the key cannot be remembered; load it again next time.'));
      return;
    }
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => {
      if (create) request.result.createObjectStore(STORE);
      else request.transaction?.abort();
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB could not be opened.'));
  });
}

/**
 * @template T
 */
async function withStore<T>(mode: 'readonly' | 'readwrite', action: (store: IDBObjectStore) => IDBRequest): Promise<T> {
  const db = await open(mode === 'readwrite');
  try {
    return await new Promise((resolve, reject) => {
      const request = action(db.transaction(STORE, mode).objectStore(STORE));
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('IndexedDB failed.'));
    });
  } finally {
    db.close();
  }
}

/**
 * Stores the key (replacing any other).
 */
export async function rememberKey(entry: RememberedKey) {
  if (entry.privateKey.extractable) throw new Error('Only a non-extractable key is ever remembered.');
  await withStore('readwrite', (store) => store.put({ keyId: entry.keyId, fingerprint: entry.fingerprint, privateKey: entry.privateKey }, ENTRY));
}

export async function recallKey(): Promise<RememberedKey | undefined> {
  try {
    const entry: RememberedKey | undefined = await withStore('readonly', (store) => store.get(ENTRY));
    return entry && typeof entry.keyId === 'string' && entry.privateKey instanceof CryptoKey ? entry : undefined;
  } catch {
    return undefined;
  }
}

/** Deletes the remembered key, if any, with the whole database: nothing of the portal remains. */
export async function forgetKey() {
  if (typeof indexedDB === 'undefined') return;
  await new Promise((resolve) => {
    const request = indexedDB.deleteDatabase(DB_NAME);
    request.onsuccess = () => resolve(undefined);
    request.onerror = () => resolve(undefined);
    request.onblocked = () => resolve(undefined);
  });
}
