import { DecryptCommand, GenerateDataKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import { SecretUnreadableError } from '@outbound/core/errors';
import type { DataKey, EncryptionContext, KeyProvider } from '@outbound/core/ports/key-provider';

/**
 * KMS errors that mean "this data key cannot be opened with this context":
 * tampering or a context mismatch, not an outage. Everything else (throttling,
 * access denied, network) passes through so it is retried or alarmed on.
 */
const UNREADABLE = new Set(['InvalidCiphertextException', 'IncorrectKeyException']);

/**
 * The KeyProvider over AWS KMS (or the local KMS-protocol server). The client
 * is injected so one is created per process and tests can point it anywhere.
 */
export class KmsKeyProvider implements KeyProvider {
  private readonly client: KMSClient;
  private readonly keyId: string;

  constructor(opts: { client: KMSClient; keyId: string }) {
    this.client = opts.client;
    this.keyId = opts.keyId;
  }

  async generateDataKey(context: EncryptionContext): Promise<DataKey> {
    const out = await this.client.send(new GenerateDataKeyCommand({ KeyId: this.keyId, KeySpec: 'AES_256', EncryptionContext: context }));
    if (!out.Plaintext || !out.CiphertextBlob) {
      throw new Error('KMS GenerateDataKey returned no key material.');
    }
    return { plaintext: out.Plaintext, ciphertext: out.CiphertextBlob };
  }

  async decryptDataKey(ciphertext: Uint8Array, context: EncryptionContext): Promise<Uint8Array> {
    try {
      // KeyId is passed so KMS refuses a blob made under any other key.
      const out = await this.client.send(new DecryptCommand({ KeyId: this.keyId, CiphertextBlob: ciphertext, EncryptionContext: context }));
      if (!out.Plaintext) throw new Error('KMS Decrypt returned no plaintext.');
      return out.Plaintext;
    } catch (err) {
      if (err instanceof Error && UNREADABLE.has(err.name)) {
        throw new SecretUnreadableError(undefined, { cause: err });
      }
      throw err;
    }
  }
}
