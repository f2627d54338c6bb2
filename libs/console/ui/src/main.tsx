/** The console's shell: session (sign-in unless local mode), hash routes, navigation, language. */
import './styles.css';

import { type FormEvent, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';

import { getSession, type Session, signIn, signOut } from './api';
import { ErrorBox } from './common';
import { I18nProvider, useI18n } from './i18n';
import { AuditPage } from './pages/audit';
import { CatalogPage } from './pages/catalog';
import { OverviewPage } from './pages/overview';
import { PreloadPage } from './pages/preload';
import { RegisterPage } from './pages/register';
import { RunPage } from './pages/run';
import { RunsPage } from './pages/runs';
import { SearchPage } from './pages/search';
import { ToolPage } from './pages/tool';

const PAGES = [
  ['overview', 'nav.overview'],
  ['catalog', 'nav.catalog'],
  ['preload', 'nav.preload'],
  ['register', 'nav.register'],
  ['search', 'nav.search'],
  ['runs', 'nav.runs'],
  ['audit', 'nav.audit'],
] as const;

function useRoute(): string[] {
  const read = () => location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const on = () => setRoute(read());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

function SignIn({ onSession }: { onSession: (s: Session) => void }) {
  const { t } = useI18n();
  const [credential, setCredential] = useState('');
  const [error, setError] = useState<unknown>();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    signIn(credential).then(
      (s) => {
        setCredential('');
        onSession(s);
      },
      (err: unknown) => setError(err),
    );
  };
  return (
    <main id="main" className="signin">
      <h1>{t('signin.title')}</h1>
      <p>{t('signin.help')}</p>
      <form onSubmit={submit}>
        <label htmlFor="credential">{t('signin.credential')}</label>
        <input id="credential" type="password" autoComplete="off" value={credential} onChange={(e) => setCredential(e.target.value)} required />
        <button type="submit">{t('signin.submit')}</button>
      </form>
      <ErrorBox error={error} />
    </main>
  );
}

function Page({ route, session }: { route: string[]; session: Session }) {
  const [page, ...rest] = route;
  switch (page) {
    case 'catalog':
      return <CatalogPage />;
    case 'tool':
      return <ToolPage provider={rest[0] ?? ''} name={rest[1] ?? ''} />;
    case 'preload':
      return <PreloadPage session={session} />;
    case 'register':
      return <RegisterPage />;
    case 'search':
      return <SearchPage />;
    case 'runs':
      return <RunsPage />;
    case 'run':
      return <RunPage runId={rest[0] ?? ''} />;
    case 'audit':
      return <AuditPage session={session} />;
    default:
      return <OverviewPage />;
  }
}

function App() {
  const { t, lang, setLang } = useI18n();
  const [session, setSession] = useState<Session>();
  const [error, setError] = useState<unknown>();
  const route = useRoute();
  useEffect(() => {
    getSession().then(setSession, setError);
  }, []);
  useEffect(() => {
    document.title = t('title');
  }, [t]);
  const langSwitch = (
    <div className="lang">
      <label htmlFor="lang">{t('language')}</label>
      <select id="lang" value={lang} onChange={(e) => setLang(e.target.value as 'en' | 'zh')}>
        <option value="en">English</option>
        <option value="zh">中文</option>
      </select>
    </div>
  );
  if (error) return <main id="main"><ErrorBox error={error} /></main>;
  if (!session) return <main id="main" aria-busy="true">{t('loading')}</main>;
  if (!session.signedIn) {
    return (
      <>
        <header className="top">
          <span className="brand">{t('title')}</span>
          {langSwitch}
        </header>
        <SignIn onSession={setSession} />
      </>
    );
  }
  const current = route[0] === 'tool' ? 'catalog' : route[0] === 'run' ? 'runs' : route[0] || 'overview';
  return (
    <>
      <header className="top">
        <span className="brand">{t('title')}</span>
        <nav aria-label={t('nav.main')}>
          {PAGES.map(([id, key]) => (
            <a key={id} href={`#/${id}`} aria-current={current === id ? 'page' : undefined}>
              {t(key)}
            </a>
          ))}
        </nav>
        {langSwitch}
        <span className="who" data-testid="principal">
          {session.localMode ? t('session.local') : `${session.principal} (${(session.roles ?? []).join(', ')})`}
        </span>
        {!session.localMode && (
          <button type="button" onClick={() => void signOut().then(() => setSession({ signedIn: false, localMode: false }))}>
            {t('signout')}
          </button>
        )}
      </header>
      <main id="main">
        <Page route={route} session={session} />
      </main>
    </>
  );
}

createRoot(document.getElementById('root')!).render(
  <I18nProvider>
    <App />
  </I18nProvider>,
);
