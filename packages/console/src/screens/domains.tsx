/**
 * Domains: each domain's checks (SPF, DKIM, DMARC, blocklists) with what to
 * fix, its latest inbox placement, and the mailing address its footers carry.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '@outbound/client/index';
import { api, errorText, when } from '../api.ts';
import { Alert } from '../messages.tsx';

type Domain = Schemas['Domain'];
type Placement = Schemas['PlacementSample'];

const FIX: Record<string, string> = {
  spf: 'Publish a TXT record at the domain starting "v=spf1" that includes your mail provider.',
  dkim: 'Turn on DKIM signing at your mail provider and publish the TXT record it gives under its selector.',
  dmarc: 'Publish a TXT record at _dmarc of the domain, for example "v=DMARC1; p=none".',
  blocklists: 'The domain is on a blocklist: find the cause (a spike, a complaint), fix it, then ask the list to remove it.',
};

function Checks({ domain }: { domain: Domain }) {
  const c = domain.lastCheck;
  if (!c) return <p class="muted">Not checked yet.</p>;
  const listed = Object.entries(c.blocklists)
    .filter(([, v]) => v === 'FAIL')
    .map(([k]) => k);
  const rows: [string, string, string | undefined][] = [
    ['SPF', c.spf, c.spf === 'FAIL' ? FIX.spf : undefined],
    [
      'DKIM',
      c.dkim,
      c.dkim === 'FAIL'
        ? FIX.dkim
        : c.dkim === 'PENDING'
          ? 'Set the DKIM selector your provider uses (edit the domain) so it can be checked.'
          : undefined,
    ],
    ['DMARC', c.dmarc, c.dmarc === 'FAIL' ? FIX.dmarc : undefined],
    ['Blocklists', listed.length ? 'FAIL' : 'PASS', listed.length ? `Listed on ${listed.join(', ')}. ${FIX.blocklists}` : undefined],
  ];
  return (
    <>
      <table>
        <thead>
          <tr>
            <th scope="col">Check</th>
            <th scope="col">Result</th>
            <th scope="col">What to fix</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([name, result, fix]) => (
            <tr key={name}>
              <td>{name}</td>
              <td>{result === 'PASS' ? 'Passes' : result === 'PENDING' ? 'Not checked' : 'Fails'}</td>
              <td>{fix ?? 'Nothing'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="muted">Checked {when(c.checkedAt)}.</p>
    </>
  );
}

function DomainCard({ domain, onChange }: { domain: Domain; onChange: () => void }) {
  const [placement, setPlacement] = useState<Placement | null | undefined>();
  const [error, setError] = useState('');
  const [checking, setChecking] = useState(false);
  useEffect(() => {
    void api
      .GET('/v1/domains/{id}/placement-sample', { params: { path: { id: domain.id } } })
      .then(({ data }) => setPlacement((data as Placement | undefined) ?? null));
  }, [domain.id]);
  const check = async () => {
    setChecking(true);
    const { error: refused } = await api.POST('/v1/domains/{id}/check', { params: { path: { id: domain.domainName } } });
    setChecking(false);
    if (refused) setError(errorText(refused));
    else onChange();
  };
  return (
    <section class="card" aria-label={domain.domainName}>
      <h2>{domain.domainName}</h2>
      <h3>Mailing address</h3>
      <p class="preview">
        {domain.mailingAddress ?? 'None yet: campaigns from this domain cannot launch until it has one (the footer must carry it).'}
      </p>
      <h3>Checks</h3>
      <div class="scroll">
        <Checks domain={domain} />
      </div>
      <button type="button" class="quiet" disabled={checking} onClick={() => void check()}>
        Check {domain.domainName} now
      </button>
      <h3>Placement</h3>
      {placement && placement.sampleSize > 0 ? (
        <p>
          Of the last {placement.sampleSize} test emails: {placement.inbox} in the inbox, {placement.spam} in spam, {placement.missing}{' '}
          missing ({when(placement.sampledAt)}).
        </p>
      ) : (
        <p class="muted">No placement sample yet.</p>
      )}
      <Alert text={error} />
    </section>
  );
}

export function Domains() {
  const [domains, setDomains] = useState<Domain[]>([]);
  const [error, setError] = useState('');
  const [name, setName] = useState('');
  const [address, setAddress] = useState('');
  const load = async () => {
    const { data, error: refused } = await api.GET('/v1/domains');
    if (data) setDomains(data as Domain[]);
    else setError(errorText(refused));
  };
  useEffect(() => void load(), []);
  const add = async (e: Event) => {
    e.preventDefault();
    setError('');
    const { data, error: refused } = await api.POST('/v1/domains', {
      body: { domainName: name, mailingAddress: address || undefined } as never,
    });
    if (data) {
      setName('');
      setAddress('');
      void load();
    } else setError(errorText(refused));
  };
  return (
    <>
      <h1>Domains</h1>
      {domains.map((d) => (
        <DomainCard key={d.id} domain={d} onChange={() => void load()} />
      ))}
      <form class="card" onSubmit={add}>
        <h2>Add a domain</h2>
        <label for="d-name">Domain name</label>
        <input id="d-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <label for="d-address">Mailing address (shown in every footer)</label>
        <textarea id="d-address" value={address} onInput={(e) => setAddress(e.currentTarget.value)} />
        <button type="submit">Add domain</button>
      </form>
      <Alert text={error} />
    </>
  );
}
