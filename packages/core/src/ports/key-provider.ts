/**
 * KeyProvider: the envelope-encryption port. On AWS it is KMS; locally it is
 * the same KMS client talking to the local KMS-protocol server. Core never
 * sees a master key, only data keys it uses once and forgets.
 */
export interface DataKey {
  /** 32 random bytes for AES-256-GCM. Zero it after use. */
  plaintext: Uint8Array;
  /** The data key encrypted under the master key, stored beside the ciphertext. */
  ciphertext: Uint8Array;
}

/** Binds a ciphertext to what it protects (KMS encryption context, AAD). */
export type EncryptionContext = Record<string, string>;

export interface KeyProvider {
  generateDataKey(context: EncryptionContext): Promise<DataKey>;
  decryptDataKey(ciphertext: Uint8Array, context: EncryptionContext): Promise<Uint8Array>;
}
