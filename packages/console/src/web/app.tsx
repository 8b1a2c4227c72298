import { useEffect, useMemo, useState } from 'preact/hooks';
import { ConsoleApi } from './logic/api';
import { AuditPage } from './pages/audit';
import { remainingMs, type Session } from './logic/session';
import { ComponentsPage } from './pages/components';
import { DecisionsPage } from './pages/decisions';
import { DocumentsPage } from './pages/documents';
import { PlaygroundPage } from './pages/playground';
import { ReplicasPage } from './pages/replicas';
import { SignIn } from './pages/sign-in';
import { SolutionsPage } from './pages/solutions';
import { hrefOf, useRoute } from './router';
import type { ConsoleContext } from './context';

const PAGES: ReadonlyArray<{ page: string; title: string }> = [
  { page: 'policies', title: 'Policies' },
  { page: 'timers', title: 'Timers' },
  { page: 'components', title: 'Components' },
  { page: 'playground', title: 'Playground' },
  { page: 'decisions', title: 'Decisions' },
  { page: 'replicas', title: 'Replicas' },
  { page: 'solutions', title: 'Solutions' },
  { page: 'audit', title: 'Audit' },
];

export function App() {
  const [session, setSession] = useState<Session | undefined>(undefined);
  const [notice, setNotice] = useState('');
  const [lastRevision, setLastRevision] = useState<number | undefined>(undefined);
  const route = useRoute();

  // The token is kept in memory only; the session ends when it expires.
  useEffect(() => {
    if (session === undefined) return undefined;
    const timer = window.setTimeout(() => {
      setSession(undefined);
      setNotice('Your token expired; sign in again.');
    }, remainingMs(session, Date.now()));
    return () => window.clearTimeout(timer);
  }, [session]);

  const ctx = useMemo<ConsoleContext | undefined>(
    () =>
      session === undefined
        ? undefined
        : {
            api: new ConsoleApi(session.token),
            session,
            lastRevision,
            sawRevision: (revision) => {
              if (revision !== undefined) setLastRevision((seen) => Math.max(seen ?? 0, revision));
            },
          },
    [session, lastRevision],
  );

  if (ctx === undefined) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(s) => {
          setNotice('');
          setSession(s);
        }}
      />
    );
  }

  const title = PAGES.find((p) => p.page === route.page)?.title ?? 'Not found';
  return (
    <div class="shell">
      <header class="top">
        <span class="brand">Custos console</span>
        <nav aria-label="Pages">
          <ul>
            {PAGES.map((p) => (
              <li key={p.page}>
                <a href={hrefOf(p.page)} aria-current={p.page === route.page ? 'page' : undefined}>
                  {p.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          Signed in as <strong>{ctx.session.clientId}</strong>
          <button type="button" class="secondary" onClick={() => setSession(undefined)}>
            Sign out
          </button>
        </span>
      </header>
      <main id="main" aria-label={title}>
        <Page route={route} ctx={ctx} />
      </main>
    </div>
  );
}

function Page({ route, ctx }: { route: { page: string; rest: string }; ctx: ConsoleContext }) {
  switch (route.page) {
    case 'policies':
      return <DocumentsPage key="policy" kind="policy" openId={route.rest} ctx={ctx} />;
    case 'timers':
      return <DocumentsPage key="timer" kind="timer" openId={route.rest} ctx={ctx} />;
    case 'components':
      return <ComponentsPage ctx={ctx} />;
    case 'playground':
      return <PlaygroundPage ctx={ctx} />;
    case 'decisions':
      return <DecisionsPage ctx={ctx} openId={route.rest} />;
    case 'replicas':
      return <ReplicasPage ctx={ctx} />;
    case 'solutions':
      return <SolutionsPage ctx={ctx} />;
    case 'audit':
      return <AuditPage ctx={ctx} />;
    default:
      return (
        <p>
          No page <code>{route.page}</code>. <a href={hrefOf('policies')}>Go to the policies</a>.
        </p>
      );
  }
}
