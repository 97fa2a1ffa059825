import { GuardrailError } from '../errors.ts';
import { AI_DISCLOSURE } from './disclosure.ts';

/**
 * Guardrail 1 and the footer order (docs/sending.md): after the body, the
 * sending domain's mailing address (one line per address line), then the
 * unsubscribe link, then, only when `aiDisclosure`, the AI marker. With no
 * address or no unsubscribe link there is no footer and no send.
 */
export function buildFooter(opts: {
  mailingAddress: string | null | undefined;
  unsubscribeUrl: string | undefined;
  aiDisclosure: boolean;
}): string {
  const address = (opts.mailingAddress ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  if (!address.length) {
    throw new GuardrailError('NO_ADDRESS', 'The sending domain has no mailing address: the email was not sent.');
  }
  if (!opts.unsubscribeUrl) {
    throw new GuardrailError('NO_UNSUBSCRIBE', 'There is no unsubscribe link for this email: it was not sent.');
  }
  return ['--', ...address, `Unsubscribe: ${opts.unsubscribeUrl}`, ...(opts.aiDisclosure ? [AI_DISCLOSURE] : [])].join('\n');
}
