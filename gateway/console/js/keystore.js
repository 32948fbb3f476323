// The signed-in key kept in IndexedDB when the operator asks for it: the CryptoKey object
// itself, which stays non-extractable there (structured clone keeps the flag), with the
// public key and organization it belongs to. Nothing else of the key is ever written.
const DB = "signet-console";
const STORE = "keys";

function open() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}
async function run(mode, action) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const req = action(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(req.result);
      tx.onerror = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}
export const saveKey = (record) => run("readwrite", (s) => s.put(record, "current"));
export const loadKey = () => run("readonly", (s) => s.get("current"));
export const forgetKey = () => run("readwrite", (s) => s.delete("current"));
