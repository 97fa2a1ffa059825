/**
 * Why a recipient's delivery failed, and whether that is for good
 * (docs/inbound.md, "Notices from mail systems"). The reasons follow the
 * groups Sisimai's reason table draws (its per-reason phrase lists record how
 * mail systems word each cause); the phrases here are our own, written from
 * the notices in test/fixtures/bounces and the RFC 3463 status codes.
 *
 * Hard or soft is decided by the reason as well as the status class: a 5.x.x
 * for a full mailbox, an expired message or a rate limit is still a valid
 * address, so it is soft; an unknown user is dead whatever the class.
 */

import type { BounceReason } from '../classify.ts';

export type { BounceReason };

/** The address itself is dead: hard whatever the status class (a 4.x.x "user unknown" is a server that will not say so twice). */
const RECIPIENT_DEAD = new Set<BounceReason>(['user-unknown', 'host-unknown', 'mailbox-disabled', 'has-moved', 'filtered']);
/**
 * Temporary, or the sending side's own standing: the address is fine, so
 * soft even with a 5.x.x (a full mailbox at 5.2.2, "5.4.316 Message expired",
 * "too many recipients this hour", the sending host on a blocklist).
 */
const TRANSIENT = new Set<BounceReason>([
  'mailbox-full',
  'rate-limited',
  'too-many-connections',
  'expired',
  'network-error',
  'system-error',
  'reputation',
]);

/** Which reasons are hard: the recipient group always, the transient group never, the rest (policy) by the status class. */
export function isHard(reason: BounceReason, status: string, action: string): boolean {
  if (action !== 'failed') return false;
  // A domain that does not resolve today may resolve tomorrow: a 4.x.x for it is a DNS answer that may pass.
  if (reason === 'host-unknown') return status.startsWith('5.');
  if (RECIPIENT_DEAD.has(reason)) return true;
  if (TRANSIENT.has(reason)) return false;
  return status.startsWith('5.');
}

/** The group a reason belongs to, as docs/inbound.md shows it. */
export const reasonGroup = (reason: BounceReason): 'recipient' | 'transient' | 'policy' =>
  RECIPIENT_DEAD.has(reason) ? 'recipient' : TRANSIENT.has(reason) ? 'transient' : 'policy';

/**
 * Phrases, in the order they are tried: the more telling cause first (a
 * full mailbox is often also "rejected"; a blocklisted host is also
 * "blocked"). Each is a plain alternation with bounded gaps, tried on a
 * bounded, lower-cased diagnostic, so none can run away.
 */
const PHRASES: [BounceReason, RegExp][] = [
  // The message's time ran out, not an account: "this account has expired" is a dead address (mailbox-disabled, below).
  [
    'expired',
    /message expired|could not deliver for|for the last [0-9]+ (seconds|minutes|hours|days)|failing for a long time|retry time not reached|(message|delivery|time|retry|queue|lifetime|ttl)[^\n]{0,20}\bexpired\b|\bexpired (after|in (the )?queue|while)|retry time(out)? (not reached|exceeded)|retry timeout|too long in (the )?queue|in (the )?queue (for )?too long|delivery time expired|could not be delivered within|not (been )?delivered (for|within) [0-9]|giving up on it|maximum time|\b5\.4\.316\b|timeout waiting for|time limit exceeded/,
  ],
  // A sending quota is the sender's rate, not the recipient's storage.
  ['rate-limited', /(daily|hourly|sending) (sending |user sending )?(quota|limit)/],
  [
    'mailbox-full',
    /mailbox (is )?full|mail ?box[^\n]{0,30}(is )?(full|over ?quota|exceeded|exceeds)|over ?quota|quota (exceeded|exceed|full|violation)|exceeded[^\n]{0,30}(quota|storage)|insufficient (disk )?(space|storage)|(disk|storage|inbox|folder|mailfolder) (is )?full|full mailbox|no space left|not enough (space|storage)|user is over|account is full|(has|have) (exceeded|reached)[^\n]{0,30}(quota|storage|limit of)|mailbox size limit|size of the mailbox|box full|recipient'?s? mailbox[^\n]{0,20}(full|quota)/,
  ],
  // Japanese carriers' wording: the mailbox's capacity (容量) is over or full (満杯, いっぱい).
  ['mailbox-full', /容量[^\n]{0,20}(超過|オーバー|不足|いっぱい)|満杯|メールボックスがいっぱい/],
  // The same cause in the languages European providers write their notices in (German, French, Spanish, Dutch, Portuguese, Italian).
  [
    'mailbox-full',
    /postfach[^\n]{0,20}(voll|überschritten|ueberschritten)|speicherplatz[^\n]{0,20}(voll|erschöpft|überschritten)|bo[iî]te[^\n]{0,40}pleine|buz[oó]n[^\n]{0,20}lleno|(mailbox|postvak|postbus)[^\n]{0,10} vol\b|caixa[^\n]{0,25}cheia|casella[^\n]{0,20}piena|quota[^\n]{0,20}(überschritten|dépassé|depasse|superad|excedid|overschreden)/,
  ],
  [
    'mailbox-disabled',
    /(account|mailbox|user|recipient)[^\n]{0,50}(is |has been |was )?\b(disabled|suspended|inactive|deactivated|locked|frozen|closed|terminated|expired|discontinued|not active|inactivated)\b|(disabled|suspended|inactive|deactivated) (account|mailbox|user|recipient)|no longer (active|in use|valid|available)|account[^\n]{0,20}(is )?unavailable|mailbox unavailable[^\n]{0,10}disabled|\b5\.2\.1\b.{0,20}(disabled|inactive)/,
  ],
  [
    'rate-limited',
    /too many (recipients|messages|emails|mails|rcpt)|rate limit|ratelimit|rate-limit|frequency limit|frequency of|limit (exceeded )?(of )?(messages|recipients) per|sending (rate|limit|quota)|exceeded[^\n]{0,40}(rate|sending|messages per|recipients per|daily|hourly)|throttl|greylist|graylist|try (again )?later|please retry|temporarily (deferred|rejected|refused)|receiving mail at a rate|too (much|many) (mail|messages) (from|sent)|daily (sending |user sending )?(quota|limit)|\b4\.7\.28\b|resources? (are )?temporarily|unusual (rate|volume)|speeding|sender[^\n]{0,20}(has )?sent too many/,
  ],
  [
    'too-many-connections',
    /too many (connections|concurrent|simultaneous|sessions|smtp sessions|hosts)|connection limit|concurrent connections|connections? (from|per) (your|this) ip/,
  ],
  // A link in the message on a URI blocklist is about the content, not the sending host.
  ['spam-detected', /uribl|surbl|blacklisted (url|link)|(url|link) in (the )?message/],
  // A blocklist that names an address (the sender's, or "to/from an address") is the receiving side refusing that
  // address, a policy; only the sending host's listing (its IP, its network, a DNSBL zone) is the sender's standing.
  [
    'blocked',
    /(?<!ip )address (that )?(has been |is )?(black|block) ?listed|(sender|e-?mail)( address)? (has been |is )?(black|block) ?listed|sender is (in|on) (my|our|a|the) (black|block) ?list/,
  ],
  // `reputation` is the sending host on a blocklist (a DNSBL zone, its IP or network listed): soft, the address is fine.
  [
    'reputation',
    /black ?list|block ?list(ed)?|(?<!not )listed (at|in|on|by)|\bon (our|a) (block|black)|spamhaus|spamcop|sorbs|barracuda(central)?|\brbl\b|\bdnsbl\b|\buceprotect|\bcbl\b|ip[^\n]{0,20}(is )?(listed|blacklisted|blocklisted)/,
  ],
  // A refusal for a low reputation score is the receiving side's spam policy, hard at 5.x.x (docs/inbound.md, Reasons, hard and soft)
  // (Gmail's "the very low reputation of the sending IP address ... to protect our users from spam").
  ['blocked', /reputation|poor (ip|sender|email)/],
  ['virus-detected', /virus|malware|infected|malicious (content|attachment|code)|\btrojan\b/],
  [
    'spam-detected',
    /\bspam\b|spam (content|message|detected)|junk mail|bulk mail|unsolicited|considered (as )?(spam|junk)|appears to be (spam|unsolicited)|classified as (spam|junk)|message (was )?rejected as spam|spamassassin|identified as spam|\bspamming\b/,
  ],
  [
    'auth-failure',
    /\bdmarc\b|\bspf\b|\bdkim\b|sender policy framework|domain (of|in) (the )?sender[^\n]{0,30}(not|fail)|authentication (failed|failure|required|results)|not authenticated|unauthenticated|sender verif(y|ication) failed|could not verify sender|\b5\.7\.(2[3-7]|9)\b/,
  ],
  [
    'has-moved',
    /has moved|moved (to|permanently)|no longer (at|with|works|employed)|address (has )?changed|changed (his|her|their) (e-?mail|address)|\b5\.1\.6\b/,
  ],
  [
    'not-accepted',
    /(doesn't|does not) receive (e-?mail|mail)|(does not|doesn't|will not|not) accept(ing)? (any )?(e-?mail|mail|messages)|null mx|no mail (is )?accepted|accepts no mail/,
  ],
  // A name server that did not answer is not a domain that does not exist (the rest of this family is below).
  [
    'network-error',
    /host not found, try\s+again|try again[^\n]{0,20}(dns|lookup)|temporary (dns|lookup|name service) (failure|error)|dns (lookup )?(timeout|timed out|servfail)|servfail/,
  ],
  [
    'host-unknown',
    /domain \S+ (couldn't|could not|cannot|can't) be found|dns error|had no relevant answers|host (or domain name )?not found|unknown host|no such (host|domain)|domain[^\n]{0,30}(does not|doesn't|did not|not) exist|host unknown|domain (not found|is not|name not found)|unknown domain|no (mx|dns|a) records?|mx (record|lookup)|invalid domain|could not resolve|unresolvable|illegal host|bad destination (host|system)|unrouteable (mail )?domain|nxdomain|name service error|domain (is )?(not (valid|configured|hosted)|unknown)|(host|domain) name lookup failed|\b5\.1\.2\b|\b5\.4\.4\b/,
  ],
  [
    'user-unknown',
    /user unknown|recipient address rejected(: access denied|\.)|mailbox unavailable|invalid (final delivery )?userid|unknown user|no such (user|mailbox|recipient|account|address|person|local user)|(user|recipient|mailbox|account|address|e-?mail|addressee)[^\n]{0,40}(does not|doesn't|did not|not) exist|not (a )?(valid|known) (user|recipient|mailbox|address|account)|invalid (recipient|mailbox|address|user|account|e-?mail)|unknown (recipient|local[- ]?part|address|mailbox|alias|account|e-?mail)|(address|recipient|user|mailbox)( was)? not found|wasn't found at|couldn't be found|could not be found|no mailbox (here|by)|not listed in|unrouteable address|undeliverable address|bad destination mailbox|mailbox not found|recipient (address )?(is )?(unknown|invalid)|(user|recipient|mailbox)[^\n]{0,20}unknown|not our customer|no account by that name|addressee unknown|unknown in (virtual|local|relay)|recipientnotfound|no such (e-?mail|email address)|is not a valid (e-?mail|mailbox|recipient)|address (is )?invalid|destination addresses were unknown|not a (valid|known) (e-?mail|address)|unknown or illegal alias|does not have an account|no valid recipients|mailbox does not|this user doesn't|the email account that you tried to reach|\b5\.1\.1\b/,
  ],
  // Japanese: the address does not exist (存在しません), is unknown (宛先不明) or cannot be found (見つかりません).
  ['user-unknown', /(アドレス|宛先|ユーザ)[^\n]{0,20}(存在しません|見つかりません|不明)|宛先不明/],
  // European languages: a domain that does not exist first (soft at 4.x.x), then a recipient that does not.
  [
    'host-unknown',
    /(domäne|domain|domaine|dominio|domein|dom[ií]nio)[^\n]{0,30}(existiert nicht|nicht gefunden|n'existe pas|introuvable|no existe|bestaat niet|n[aã]o existe|non esiste)/,
  ],
  [
    'user-unknown',
    /(benutzer|empfänger|empfaenger|adresse|postfach|utilisateur|destinataire|usuario|destinatario|direcci[oó]n|gebruiker|ontvanger|adres|usu[aá]rio|utilizador|destinat[aá]rio|endere[cç]o|utente|indirizzo)[^\n]{0,30}(unbekannt|existiert nicht|nicht gefunden|inconnue?|inexistante?|n'existe pas|desconocido|no existe|onbekend|bestaat niet|desconhecido|n[aã]o existe|inexistente|sconosciuto|non esiste)|(unbekannte[rn]?|onbekende) (benutzer|empfänger|gebruiker|ontvanger)/,
  ],
  [
    'filtered',
    /filtered|rejected by (the )?(recipient|user)|recipient[^\n]{0,20}(refuses|refused|does not want|does not accept)|(refuses|declined) to accept|blocked by (the )?(recipient|user|mailbox owner)|content filter|delivery not authorized|not authorized to (send|post)|(do not|don't|does not) have permission|permission to (post|send)|(group|list) you tried to contact|mail from you is not accepted|sender is not allowed|refused by recipient|recipient[^\n]{0,20}(rule|filter)|not allowed to (send|post|receive)|\b5\.2\.0\b/,
  ],
  [
    'relaying-denied',
    /relay(ing)? (access )?(denied|not permitted|not allowed|prohibited|refused)|insecure (mail )?relay|not permitted to relay|(unable|cannot|can't) relay|we do not relay|relay access|not a gateway|no relaying|relay not permitted|open relay|relaying mail to|you are not allowed to relay/,
  ],
  [
    'message-too-big',
    /(message|mail|email|data)[^\n]{0,20}(too (big|large)|exceeds? (the )?(size|max|maximum)|size (limit|exceeds|exceeded))|too (big|large) for|size limit|message length exceeds|exceeds[^\n]{0,20}(fixed )?(message )?size|maximum message size|\b5\.3\.4\b|\b5\.2\.3\b/,
  ],
  // The way to the receiving server failed, or the server itself did: causes that name the network or the
  // system, tried after every cause that names a recipient or a policy, and before the generic refusal words
  // ("blocked", "refused", "rejected") that often stand beside them.
  // A server that will not talk to the sending host at all (RFC 5321 §3.1's 554 greeting, "not accepting connections",
  // "no SMTP service here") refuses the connection, not the address: the same address takes mail from another host.
  [
    'network-error',
    /not accepting (any )?(incoming )?connections|no smtp service|connection (timed out|refused|reset|lost|closed|dropped)|no route to host|(host|network|destination) (is )?unreachable|(mail|routing|forwarding|aliasing) loop|loops? back to (myself|itself)|too many hops|hop count exceeded|closing transmission channel|lost connection|broken pipe|(could not|couldn't|unable to) (connect|establish)/,
  ],
  [
    'system-error',
    /internal (system|server) error|\bsystem error\b|local (configuration )?error|(mail )?(system|server) configuration error|mail system (is )?full|queue file write error|i\/o error|temporary local problem|error in processing|interrupted system call|server (is )?too busy|insufficient system (storage|resources)|out of memory/,
  ],
  [
    'blocked',
    /blocked|access denied|denied access|(connection|client|host|ip|address|session|hello|helo|ehlo)[^\n]{0,30}(refused|rejected|denied|not allowed|not permitted|blocked|banned)|refused to talk|your (ip|host|server|address|network|domain)|banned|reverse (dns|lookup|dns lookup)|\bptr\b|\brdns\b|(no|invalid|bad) (helo|ehlo|hostname)|not (resolve|resolvable)|dynamic|residential|dial ?up|generic (hostname|rdns)|client host|sender (ip|address|domain)[^\n]{0,20}(rejected|denied|refused)|sender address rejected|sender rejected|domain of sender|unknown sender|sender (domain )?(not|is not|must)|mail from[^\n]{0,20}(rejected|refused|denied)|administrative(ly)? prohibit|prohibited|not allowed/,
  ],
  [
    'syntax-error',
    /syntax error|command unrecognized|unrecognized command|bad sequence|line too long|invalid command|command not (recognized|implemented)|parameter|\b5\.5\.[0-4]\b/,
  ],
  [
    'content-rejected',
    /content|(message|mail) (body|headers?)[^\n]{0,20}(rejected|not accepted|invalid)|improper|not (compliant|rfc)|rfc ?(2822|5322|822|5321|1123)|header[^\n]{0,20}(error|syntax|invalid|missing)|bare lf|8[- ]?bit|\bmime\b|attachment|message (was )?rejected (because|due)|\b5\.6\.[0-9]\b/,
  ],
  [
    'policy',
    /policy|polic(y|ies)|not accepted|not permitted|refused|rejected|denied|security|tls|starttls|encryption|not allowed|\b5\.7\.[0-9]+\b/,
  ],
  [
    'network-error',
    /network|did not accept our requests to connect|socket error|connection (timed out|refused|reset|lost|closed|dropped)|timed? ?out|no route|unreachable|could not connect|couldn't connect|unable to connect|routing loop|mail loop|loop(s)? (back|detected)|too many hops|hop count|lost connection|broken pipe|dns (error|failure|problem)|\bloop\b/,
  ],
  [
    'system-error',
    /system error|internal (server )?error|local error|server (is )?(busy|unavailable|error)|service (is )?(not available|unavailable|temporarily)|i\/o error|configuration error|system (is )?(busy|full|not available|not accepting)|too busy|insufficient system|insufficient permission|temporar(il)?y|out of memory|unexpected|error in processing|transaction failed|processing error/,
  ],
];

/** RFC 3463 status codes that say the reason themselves (class dropped: x.1.1 is the same cause at 4 or 5). */
const BY_STATUS: Record<string, BounceReason> = {
  '1.1': 'user-unknown',
  '1.2': 'host-unknown',
  '1.3': 'syntax-error',
  '1.4': 'user-unknown',
  '1.5': 'user-unknown',
  '1.6': 'has-moved',
  '1.7': 'blocked',
  '1.8': 'blocked',
  // RFC 7505 gives 5.1.10 to a null MX, but Exchange Online writes it for every unknown recipient.
  '1.10': 'user-unknown',
  '2.1': 'mailbox-disabled',
  '2.2': 'mailbox-full',
  '2.3': 'message-too-big',
  '2.4': 'system-error',
  '3.0': 'system-error',
  '3.1': 'system-error',
  '3.2': 'system-error',
  '3.4': 'message-too-big',
  '3.5': 'system-error',
  '4.1': 'network-error',
  '4.2': 'network-error',
  '4.3': 'system-error',
  '4.4': 'host-unknown',
  '4.5': 'system-error',
  '4.6': 'network-error',
  '4.7': 'expired',
  '4.316': 'expired',
  '5.0': 'syntax-error',
  '5.1': 'syntax-error',
  '5.2': 'syntax-error',
  '5.3': 'policy',
  '5.4': 'syntax-error',
  '6.0': 'content-rejected',
  '7.1': 'policy',
  '7.7': 'content-rejected',
  '7.13': 'mailbox-disabled',
  '7.23': 'auth-failure',
  '7.24': 'auth-failure',
  '7.25': 'blocked',
  '7.26': 'auth-failure',
  '7.27': 'not-accepted',
  '7.28': 'rate-limited',
};

/** Status codes whose own meaning outranks the wording around them: a 5.2.2 is a full mailbox whatever else the server says. */
const STATUS_FIRST = new Set(['2.2', '4.7', '4.316', '1.6', '7.28']);

/** The reason for one recipient, from the server's words, else its status code; 'unknown' when neither says. */
export function reasonOf(diagnostic: string, status: string): BounceReason {
  const key = status.split('.').slice(1).join('.');
  if (STATUS_FIRST.has(key)) return BY_STATUS[key]!;
  // Folded lines ("Host not\n    found") read as one sentence.
  const text = diagnostic.slice(0, 2000).toLowerCase().replace(/\s+/g, ' ');
  if (text) for (const [reason, re] of PHRASES) if (re.test(text)) return reason;
  return BY_STATUS[key] ?? 'unknown';
}
