/**
 * Notices from mail systems (docs/inbound.md): who failed, how, and why, from
 * the machine-readable report when there is one and from the prose when
 * there is not. Written after studying how Sisimai reads the 70-odd mail
 * systems it knows; instead of one reader per system, one reader for the
 * shapes they share:
 * - the report part (RFC 3464), blocks however they are laid out;
 * - X-Failed-Recipients (Exim, Google);
 * - the prose: every address the notice names that is not the sender's, the
 *   notice's own or a mail system's, with the lines around each (qmail's
 *   "<addr>:" paragraphs, Sendmail's and Postfix's transcripts, Exchange's
 *   and Gmail's sentences, Japanese carriers' lists);
 * - the returned original's To, when the notice names no one (Google Groups).
 */
import type { InboundMessage } from '../../ports/mail-reader.ts';
import { deliveryStatusBlocks } from '../reports.ts';
import { inlineOriginalOf } from './original.ts';
import { looksLikeSes, sesNotificationOf } from './ses.ts';
import type { BouncedRecipient } from '../classify.ts';
import { isHard, reasonGroup, reasonOf } from './reasons.ts';
import { addressOfToken, addressesIn } from './text.ts';
import { withoutAddresses } from '../../log.ts';

const DIAGNOSTIC_MAX = 300;
/** A report naming more recipients than this is read for the first ones only: a campaign mails one address per message. */
const RECIPIENTS_MAX = 20;
const NOTICE_MAX = 32 * 1024;

/** Local parts of mail systems' own addresses: never a bounced recipient. */
const SYSTEM_LOCAL =
  /^(mailer-daemon|mailer_daemon|mailerdaemon|mail-daemon|maildaemon|postmaster|hostmaster|abuse|noreply|no-reply|donotreply|do-not-reply|bounce|bounces|root|nobody|mail\.delivery\.system|mdaemon)([+=.-].*)?$/;
const DAEMON_LOCAL = /^(mailer-daemon|mailer_daemon|mailerdaemon|mail-daemon|maildaemon|postmaster|hostmaster|mdaemon)$/;
const SYSTEM_NAME =
  /mailer[- ]?daemon|mail delivery (subsystem|system|service)|postmaster|mail administrator|mail system|delivery status|mail router|mail gateway|post office|e-?mail delivery/i;
/** Subjects mail systems write their notices with (English, and the languages seen in the corpus). */
const NOTICE_SUBJECT =
  /^\s*(undeliver(ed|able)|undelivered mail|delivery (status notification|failure|failed|has failed|notification|report|problem|incomplete|delayed)|returned mail|return(ed)? to sender|failure notice|mail delivery (failed|failure|system)|mail system error|non[- ]?deliver|nondeliverable|message (not delivered|delivery failed|could not be delivered|you sent (could not|has been blocked))|could not send message|warning: (could not send|message [^\n]{0,80}delayed)|delayed mail|permanent (delivery )?failure|rejected:|not delivered|mail could not be delivered|error sending message|unzustellbar|non remis|onbestelbaar|no se puede entregar|olmayan|配信|返送|ошибка доставки|Не удалось доставить)/i;

const first = (value: string | undefined) => (value ?? '').split(';')[0]!.trim().toLowerCase();

/**
 * Display names mail systems sign their notices with, in the languages their
 * owners set them to ("Mail Delivery Subsystem", "E-Mail-Zustellsystem",
 * "Système de remise du courrier"...). "Postmaster" alone is left out: people
 * put it in their own names ("Erik (Postmaster team lead)").
 */
const SYSTEM_DISPLAY =
  /mailer[- ]?daemon|mail delivery (subsystem|system|service)|(e-?mail|mail)[- ]?(zustell|auslieferungs)(system|dienst)|syst[eè]me (de (distribution|remise|livraison)|d'acheminement)|service de (distribution|remise) du courrier|sistema (de entrega|de correo|di consegna|de distribui[cç][aã]o)|subsistema de entrega|(e-?mail|mail)[- ]?bezorg(ing|systeem|dienst)|メール(配信|システム|管理)|почтов(ая|ый) (служба|система|демон)/i;

/**
 * Words a notice uses when it reports a failure: an enhanced status code, an
 * SMTP reply code where a server's answer starts (a line's start, after
 * "said:" or "<<<"; not "we have 450 people"), or a failure phrase, in
 * the languages notices are written in. Alone they prove nothing (a person
 * may quote "550 5.1.1"); they count beside a sign that a mail system wrote
 * the message.
 */
const FAILURE_WORDS =
  /\b[45]\.\d{1,3}\.\d{1,3}\b|^[ \t]*[45][0-5]\d(?=[ \t-])|(said|<<<|reply|response|error)[: ]{1,3}[45][0-5]\d(?=[\s-])|undeliver|(could|can)(n't|not| not) be delivered|not (been )?delivered|delivery (to [^\n]{1,80} )?(has )?failed|failed permanently|permanent (error|failure|fatal)|fatal errors?|user unknown|unknown (user|recipient)|no such (user|mailbox|address|recipient)|does not exist|mailbox (is )?(full|unavailable)|over ?quota|returned mail|unzustellbar|nicht zugestellt|konnte nicht zugestellt|non (remis|distribu)|n'a pas (pu )?[eé]t[eé] (remis|distribu)|no (se )?(pudo|ha podido) (ser )?entregar|no (fue|ha sido) entregado|niet (worden )?(bezorgd|afgeleverd)|onbestelbaar|n[aã]o (p[oô]de|foi poss[ií]vel) (ser )?entreg|non ([eè] stato possibile )?recapitat|送信できません|配信できません|届きませんでした|宛先不明|存在しません|不達/im;

/** The recognised original the message returns: carrying a Message-ID, sent from this mailbox or answered by the message's own threading. */
function returnsOurOriginal(m: InboundMessage, mailboxEmail: string): boolean {
  const original = m.report?.original ?? m.original;
  const id = original?.messageId?.toLowerCase();
  if (!id) return false;
  // A person's client quotes an original without its Message-ID (Gmail's "On ... wrote:", Outlook's
  // "-----Original Message-----"): only a mail system hands the whole header block back.
  return (
    original!.from === mailboxEmail.toLowerCase() ||
    m.inReplyTo.some((i) => i.toLowerCase() === id) ||
    m.references.some((r) => r.toLowerCase() === id)
  );
}

/**
 * A notice from a mail system rather than a person, recognised by what it
 * is rather than by a list of known senders:
 * - what only a mail system writes: a report part, Amazon SES's JSON,
 *   X-Failed-Recipients, a daemon's own address (MAILER-DAEMON, postmaster)
 *   or a mail system's display name in any language;
 * - or a sign of one beside the words of a failure (an SMTP or status code,
 *   "could not be delivered", in the languages notices are written in): a
 *   null return path, the original this mailbox sent handed back with its
 *   headers (list managers such as fml and Apache James, Japanese carriers'
 *   gateways, attached or quoted), a notice's subject from a no-reply sender.
 * Such a message is never a reply and never an auto-reply, whatever its
 * Auto-Submitted or In-Reply-To say. Words of failure alone never make one:
 * a person may quote a bounce in their own answer.
 */
export function isMailSystemNotice(m: InboundMessage, mailboxEmail = ''): boolean {
  if (m.report || looksLikeSes(m)) return true;
  const h = m.headers;
  if (h['x-failed-recipients'] !== undefined) return true;
  const local = (m.from ?? '').split('@')[0] ?? '';
  if (DAEMON_LOCAL.test(local)) return true;
  if (m.fromName && SYSTEM_DISPLAY.test(m.fromName)) return true;
  if (!m.from && /mailer[- ]?daemon/i.test(h.from ?? '')) return true;
  const returnPath = (h['return-path'] ?? '').trim().toLowerCase();
  if (/^<?mailer-daemon\b/.test(returnPath)) return true;
  // RFC 3834 §3.3 asks automatic answers to use a null return path too: an out-of-office must not pass for a notice.
  const failing = () => FAILURE_WORDS.test(noticeText(m).slice(0, 8 * 1024)) || FAILURE_WORDS.test(m.subject);
  if ((returnPath === '<>' || returnPath === '<null>') && failing()) return true;
  if (mailboxEmail && returnsOurOriginal(m, mailboxEmail) && failing()) return true;
  // A no-reply or bounce sender is a notice only when its subject or Auto-Submitted says so.
  const automatic = first(h['auto-submitted']) !== '' && first(h['auto-submitted']) !== 'no';
  return NOTICE_SUBJECT.test(m.subject) && (automatic || SYSTEM_LOCAL.test(local) || SYSTEM_NAME.test(m.fromName ?? ''));
}

/** The part of the notice's text before the returned original. */
function noticeText(m: InboundMessage): string {
  const text = (m.bodyText ?? m.text).slice(0, NOTICE_MAX).replace(/\r\n?/g, '\n');
  const inline = inlineOriginalOf(text);
  return inline ? text.slice(0, inline.at) : text;
}

const STATUS = /\b([245])\.(\d{1,3})\.(\d{1,3})\b/;
/** An SMTP reply code where a server's answer starts: at a line start, or after "said:", "<<<", a colon or a bracket. */
const REPLY_CODE = /(?:^|[\s:([<>"])([245])\d\d(?=[\s,;.-]|$)/m;

/** A status from the words, else from the SMTP reply code; the class decides 5.0.0 or 4.0.0. */
function statusIn(text: string): string | undefined {
  const s = STATUS.exec(text);
  if (s) return `${s[1]}.${s[2]}.${s[3]}`;
  const code = REPLY_CODE.exec(text);
  if (code && code[1] !== '2') return `${code[1]}.0.0`;
  return undefined;
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, DIAGNOSTIC_MAX);

/** Phrases that say the whole notice is a delay (a warning that delivery goes on), not a failure. */
const DELAY =
  /(delivery|message)[^\n]{0,40}(is |has been )?delayed|still being retried|will (continue to )?(be )?retr(y|ied)|warning: message[^\n]{0,40}(delayed|still undelivered)|not yet been delivered|delivery attempts will continue|will keep trying|this is (a|just a) warning|no action is required/i;
/** A notice of success (Exchange's "Delivered:" and "Relayed:", delivery receipts in prose): no one failed. */
const SUCCESS_SUBJECT =
  /^\s*(delivered|relayed|delivery (status notification \(success\)|notification: delivery has been (completed|successful))|successful mail delivery|zugestellt|remis)\b/i;
const SUCCESS_TEXT =
  /(has been|was) (successfully )?delivered to the following|delivery to the following recipients? (was|has been) (successful|completed|complete)|your message (has been|was) (successfully )?delivered/i;

/** Phrases that say it failed for good. */
const PERMANENT =
  /permanent(ly)?|fatal|given up|giving up|could not be delivered|couldn't be delivered|was not delivered|wasn't delivered|undeliverable|failed|failure|rejected|unable to deliver|not be delivered|returned/i;

const HELP_LINE = /contact|assistance|questions|send mail to|write to|helpdesk|help desk|support/i;
const EXPANDED_FROM = /\(?(ultimately generated|expanded) from:?[^)\n]*\)?/gi;

interface Mention {
  recipient: string;
  lines: string[];
}

/**
 * Every address the notice's prose names as a recipient, with the lines
 * that speak of it: the line naming it and those after it, up to an empty
 * line or the next recipient (qmail, Postfix, Exchange); and every other line
 * naming it (Sendmail's transcript repeats the address beside the server's answer).
 */
function mentions(text: string, exclude: Set<string>): Mention[] {
  const lines = text.split('\n', 1500);
  const found = new Map<string, Mention>();
  const perLine = lines.map((line) =>
    // A help address ("please contact <support@...>") and the address a recipient was expanded from are not recipients.
    line.includes('@') && !HELP_LINE.test(line)
      ? addressesIn(line.replace(EXPANDED_FROM, ''), 5, 1000).filter((a) => !exclude.has(a) && !SYSTEM_LOCAL.test(a.split('@')[0]!))
      : [],
  );
  for (let i = 0; i < lines.length; i++) {
    const here = perLine[i]!;
    // A header line quoted from the original (To:, From:, Message-ID:) is not the notice speaking.
    if (
      !here.length ||
      /^\s*(message-id|references|in-reply-to|from|sender|return-path|reply-to|received|dkim-signature|x-[a-z0-9-]+|list-[a-z]+)\s*:/i.test(
        lines[i]!.slice(0, 40),
      )
    )
      continue;
    for (const recipient of here) {
      const mention = found.get(recipient) ?? { recipient, lines: [] };
      // Sendmail writes the server's answer to MAIL FROM before the recipient's line.
      const block = i > 0 && /^\s*<<</.test(lines[i - 1]!) ? [lines[i - 1]!, lines[i]!] : [lines[i]!];
      for (let j = i + 1; j < lines.length && j <= i + 8; j++) {
        if (!lines[j]!.trim() || perLine[j]!.some((a) => a !== recipient)) break;
        block.push(lines[j]!);
      }
      for (const line of block) if (!mention.lines.includes(line)) mention.lines.push(line);
      found.set(recipient, mention);
    }
  }
  return [...found.values()].slice(0, RECIPIENTS_MAX);
}

/** What the notice says overall, when a recipient's own lines say nothing: its first server answer or failure sentence. */
function overall(text: string): string {
  for (const line of text.split('\n', 400)) {
    const t = line.trim();
    if (t && (STATUS.test(t) || REPLY_CODE.test(t))) return t;
  }
  return '';
}

/** One failed recipient: its words give the reason, else the whole notice's (Exim and Gmail name the address on a line of its own). */
function recipientOf(recipient: string, action: string, status: string | undefined, diagnostic: string, notice: string): BouncedRecipient {
  const inferred = status ?? '5.0.0';
  // The address itself says nothing about why (and a local part such as "mailboxfull" would mislead).
  let reason = reasonOf(diagnostic.replaceAll(recipient, ' '), inferred);
  if (reason === 'unknown') reason = reasonOf(notice.replaceAll(recipient, ''), inferred);
  // Stored on the lead's row, the report's record and the email.bounced event: servers quote the recipient
  // (`550 5.1.1 <ann@client.com>: unknown`), and an erase must not find the address there, as the SMTP path already ensures.
  const diag = withoutAddresses(oneLine(diagnostic));
  // The receiving server's own answer says more than the report's summary of it: a 421 or 450 it gave is a
  // temporary refusal even when the sending MTA, having given up, reports failed 5.x.x (docs/inbound.md: a status
  // "or text" showing a temporary cause is soft). Causes that name a dead address stay hard whatever the class.
  const answered = REPLY_CODE.exec(diagnostic)?.[1];
  const hard = isHard(reason, inferred, action) && !(answered === '4' && reasonGroup(reason) === 'policy');
  return { recipient, action, status: inferred, ...(diag ? { diagnostic: diag } : {}), reason, hard };
}

/**
 * The failed recipients of a notice (hard and soft), each with its reason;
 * delayed, delivered and relayed recipients are left out. Empty when the
 * notice names no failed recipient it can read.
 */
export function readBounce(m: InboundMessage, mailboxEmail: string): BouncedRecipient[] {
  const text = noticeText(m);
  const original = m.report?.original ?? m.original;
  const exclude = new Set(
    [mailboxEmail.toLowerCase(), m.from ?? '', ...m.to, original?.from ?? '', ...addressesIn(m.headers['return-path'], 2)].filter(Boolean),
  );
  const prose = mentions(text, exclude);
  const delayed = DELAY.test(m.subject) || (DELAY.test(text) && !PERMANENT.test(m.subject));
  const said = overall(text);
  const proseFor = (recipient: string) => prose.find((p) => p.recipient === recipient)?.lines.join('\n') ?? '';

  // 0. Amazon SES's JSON, mailed by SNS.
  const ses = sesNotificationOf(m);
  if (ses?.kind === 'bounce') {
    return ses.recipients
      .map((r) => ({ ...r, action: r.action ?? 'failed' }))
      .filter((r) => r.action === 'failed')
      .map((r) => recipientOf(r.recipient, r.action, r.status ?? (ses.permanent ? '5.0.0' : '4.0.0'), r.diagnostic ?? '', text));
  }

  // 1. The machine-readable report, when it names anyone; or its fields written into the text
  // (a notice forwarded as text, an MTA that writes the fields without MIME).
  let blocks = m.report ? deliveryStatusBlocks(m.report.fields) : [];
  if (!blocks.length && /^final-recipient:/im.test(text)) blocks = deliveryStatusBlocks(text);
  if (blocks.length) {
    const out: BouncedRecipient[] = [];
    for (const b of blocks.slice(0, RECIPIENTS_MAX)) {
      const action = b.action ?? (b.status?.startsWith('4') ? 'delayed' : 'failed');
      if (action !== 'failed') continue;
      const words = [b.diagnostic ?? '', proseFor(b.recipient)].join('\n');
      // A generic x.0.0 in the report gives way to a precise code of the same class in the server's words.
      const precise = STATUS.exec(words)?.slice(1).join('.');
      const status = !b.status ? statusIn(words) : /^\d\.0\.0$/.test(b.status) && precise?.[0] === b.status[0] ? precise : b.status;
      out.push(recipientOf(b.recipient, action, status, words.trim() ? words : said, text));
    }
    // A report that names recipients but no failure (a delay, a success) says all there is.
    return out;
  }

  // A success notice without a report names delivered recipients, not failed ones.
  // A text that also quotes a permanent failure ("... while your message was delivered to the following address:
  // 550 5.1.1 User unknown") is not a success, whatever else its sentences say.
  const permanentCode = /\b5\.\d{1,3}\.\d{1,3}\b|(^|[\s:([<>"])5[0-5]\d(?=[\s-])/.test(text);
  if (SUCCESS_SUBJECT.test(m.subject) || (SUCCESS_TEXT.test(text) && !PERMANENT.test(m.subject) && !permanentCode)) return [];

  // 2. X-Failed-Recipients (Exim, Google), with the prose's words about each.
  const listed = addressesIn(m.headers['x-failed-recipients'], RECIPIENTS_MAX);
  // 3. The prose's own recipients; 4. the returned original's To, when the notice names no one (Google Groups).
  const names = listed.length
    ? listed
    : prose.length
      ? prose.map((p) => p.recipient)
      : (original?.to ?? []).filter((a) => !exclude.has(a)).slice(0, RECIPIENTS_MAX);
  return names.flatMap((recipient) => {
    const words = proseFor(recipient);
    const diagnostic =
      words && (STATUS.test(words) || REPLY_CODE.test(words) || words.length > recipient.length + 20)
        ? words
        : [words, said].filter(Boolean).join('\n');
    const status = statusIn(words) ?? statusIn(said);
    const action = delayed && !status?.startsWith('5') ? 'delayed' : 'failed';
    if (action !== 'failed') return [];
    const withContext = diagnostic || text.slice(0, 1000);
    return [recipientOf(recipient, action, status, withContext, text)];
  });
}

/** A recipient named in a report field or a header (`rfc822; <Ann@Client.com>`), bare and lower-case. */
export const recipientIn = (value: string | undefined) =>
  value
    ? addressOfToken(
        value
          .replace(/^[^;]*;/, '')
          .trim()
          .replace(/^<|>$/g, ''),
      )
    : undefined;
