/**
 * Mailboxes: each with its status and last error, and connecting one, with
 * SMTP and IMAP (the engine signs in first; a refused sign-in is shown as the
 * engine words it) or with Google or Microsoft (the owner signs in there).
 */
import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '@outbound/client/index';
import { api, errorText } from '../api.ts';
import { Alert, Notice } from '../messages.tsx';

type Mailbox = Schemas['Mailbox'];

const STATUS: Record<Mailbox['status'], string> = { ACTIVE: 'Sending', WARMING: 'Warming up', PAUSED: 'Paused', ERROR: 'Error' };

export function Mailboxes() {
  const [boxes, setBoxes] = useState<Mailbox[]>([]);
  const [domains, setDomains] = useState<{ id: string; domainName: string }[]>([]);
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);
  const [f, setF] = useState({
    provider: 'SMTP_CUSTOM',
    email: '',
    domainId: '',
    smtpHost: '',
    smtpPort: '587',
    imapHost: '',
    imapPort: '993',
    authPassword: '',
    senderName: '',
    dailyCap: '30',
  });
  const set = (k: keyof typeof f) => (e: { currentTarget: { value: string } }) => setF({ ...f, [k]: e.currentTarget.value });

  const load = async () => {
    const { data, error: refused } = await api.GET('/v1/mailboxes');
    if (data) setBoxes(data as Mailbox[]);
    else setError(errorText(refused));
  };
  useEffect(() => {
    void load();
    void api.GET('/v1/domains').then(({ data }) => {
      const list = (data as { id: string; domainName: string }[] | undefined) ?? [];
      setDomains(list);
      if (list[0]) setF((x) => ({ ...x, domainId: x.domainId || list[0]!.id }));
    });
  }, []);

  const connect = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    setNotice('');
    const oauth = f.provider !== 'SMTP_CUSTOM';
    const body = oauth
      ? { email: f.email, domainId: f.domainId, provider: f.provider, senderName: f.senderName || undefined, dailyCap: Number(f.dailyCap) }
      : {
          email: f.email,
          domainId: f.domainId,
          smtpHost: f.smtpHost,
          smtpPort: Number(f.smtpPort),
          imapHost: f.imapHost || undefined,
          imapPort: f.imapHost ? Number(f.imapPort) : undefined,
          authPassword: f.authPassword,
          senderName: f.senderName || undefined,
          dailyCap: Number(f.dailyCap),
        };
    const { data, error: refused } = await api.POST('/v1/mailboxes', { body: body as never });
    setBusy(false);
    if (!data) return setError(errorText(refused));
    const box = data as Mailbox;
    if (oauth) location.assign(`/v1/oauth/${f.provider.toLowerCase()}/authorize?mailboxId=${encodeURIComponent(box.id)}`);
    else {
      setNotice(`${box.email} is connected.`);
      setF({ ...f, email: '', authPassword: '' });
      void load();
    }
  };

  return (
    <>
      <h1>Mailboxes</h1>
      <section class="card scroll" aria-label="Mailboxes">
        {boxes.length === 0 ? (
          <p class="muted">No mailboxes yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Address</th>
                <th scope="col">Status</th>
                <th scope="col">Daily cap</th>
                <th scope="col">Last error</th>
              </tr>
            </thead>
            <tbody>
              {boxes.map((b) => (
                <tr key={b.id}>
                  <td>{b.email}</td>
                  <td>
                    {STATUS[b.status]}
                    {b.auth === 'oauth-pending' ? ' (waiting for its owner to sign in)' : ''}
                  </td>
                  <td>{b.dailyCap}</td>
                  <td>{b.lastError ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <form class="card" onSubmit={connect}>
        <h2>Connect a mailbox</h2>
        <label for="m-provider">Provider</label>
        <select id="m-provider" value={f.provider} onChange={set('provider')}>
          <option value="SMTP_CUSTOM">SMTP and IMAP (any provider)</option>
          <option value="GOOGLE">Google (sign in with Google)</option>
          <option value="MICROSOFT">Microsoft (sign in with Microsoft)</option>
        </select>
        <label for="m-email">Address</label>
        <input id="m-email" type="email" required value={f.email} onInput={set('email')} />
        <label for="m-domain">Domain</label>
        <select id="m-domain" value={f.domainId} onChange={set('domainId')}>
          {domains.map((d) => (
            <option key={d.id} value={d.id}>
              {d.domainName}
            </option>
          ))}
        </select>
        {f.provider === 'SMTP_CUSTOM' && (
          <div class="grid">
            <div>
              <label for="m-smtp-host">SMTP host</label>
              <input id="m-smtp-host" required value={f.smtpHost} onInput={set('smtpHost')} />
            </div>
            <div>
              <label for="m-smtp-port">SMTP port</label>
              <input id="m-smtp-port" type="number" value={f.smtpPort} onInput={set('smtpPort')} />
            </div>
            <div>
              <label for="m-imap-host">IMAP host</label>
              <input id="m-imap-host" value={f.imapHost} onInput={set('imapHost')} />
            </div>
            <div>
              <label for="m-imap-port">IMAP port</label>
              <input id="m-imap-port" type="number" value={f.imapPort} onInput={set('imapPort')} />
            </div>
            <div>
              <label for="m-password">Mailbox password</label>
              <input id="m-password" type="password" autocomplete="off" required value={f.authPassword} onInput={set('authPassword')} />
            </div>
          </div>
        )}
        <label for="m-sender">Sender name</label>
        <input id="m-sender" value={f.senderName} onInput={set('senderName')} />
        <label for="m-cap">Emails a day at most</label>
        <input id="m-cap" type="number" min={1} value={f.dailyCap} onInput={set('dailyCap')} />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Connect'}
        </button>
      </form>
      <Notice text={notice} />
      <Alert text={error} />
    </>
  );
}
