import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process.ts';
import { closedPort } from '../helpers/smtp.ts';

describe('npm run demo', () => {
  it(
    'starts its own engine and SMTP server, sends the 8 emails of the sequence, summarizes and exits 0',
    { timeout: 120_000 },
    async () => {
      // A port nobody listens on, so the demo does not find (and use) an engine that happens to run on 3000.
      const port = await closedPort();
      const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
      for (const name of ['DEMO_URL', 'DEMO_EMAIL', 'DEMO_PASSWORD', 'ADMIN_EMAIL', 'ADMIN_PASSWORD']) delete env[name];
      const child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'packages/local/src/demo.ts')], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      // 'close', not 'exit': the last lines may still be in the pipe when the process exits.
      const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
      const context = `exit ${code}\n--- stdout\n${out}\n--- stderr\n${err}`;

      expect(code, context).toBe(0);
      expect(out, context).toContain('Starting an engine in this process');
      // One line per email, numbered up to 8.
      for (let n = 1; n <= 8; n++) expect(out, context).toContain(`[${n}/8]`);
      expect(out.match(/\(first email\)/g) ?? [], context).toHaveLength(4);
      expect(out, context).toMatch(/\[\d\/8\] \S+ +to \S+ +"Re: (Quick|Short) question for \w+.*" +\(follow-up, Re:, threaded/);
      expect(out, context).not.toContain('NOT threaded');
      // The headers of the first arrival of each kind.
      expect(out, context).toMatch(/List-Unsubscribe-Post: +List-Unsubscribe=One-Click/);
      expect(out, context).toMatch(/List-Unsubscribe: +<http:\/\/localhost:\d+\/unsubscribe\/\S+>/);
      expect(out, context).toMatch(/In-Reply-To: +<\S+@demo-[0-9a-f]+\.example\.com>/);
      // The footer: the domain's mailing address, line by line, then the unsubscribe link.
      expect(out, context).toMatch(
        /\| Demo Widgets Ltd\n +\| 1 Example Street\n +\| Springfield, IL 62701\n +\| USA\n +\| Unsubscribe: http/,
      );
      // The launch check's warning about the lead without a first name.
      expect(out, context).toContain('warning FIELD_BLANK');
      // The summary.
      expect(out, context).toMatch(/Done: all 8 emails arrived/);
      expect(out, context).toContain('The engine counts 8 sent for this campaign.');
      expect(out.match(/^ +\S+@\S+ +COMPLETED$/gm) ?? [], context).toHaveLength(4);
      expect(out, context).toMatch(/Unsubscribe link of the email to ada@acme\.example:\n +http:\/\/localhost:\d+\/unsubscribe\/\S+/);
      expect(out, context).toContain('changes nothing until you press the button');
      expect(out, context).toContain('Stopped everything the demo started.');
      // No secrets: neither the bearer token nor a password is printed.
      expect(out, context).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/);
      expect(out, context).not.toMatch(/password"?\s*[:=]/i);
    },
  );
});
