/** Access: who is signed in, the principals and JWT rules the configuration names, and the grants in force (GetAccess). */
import { call, type Session } from '../api';
import { ErrorBox, useLoad } from '../common';
import { useI18n } from '../i18n';

export interface Access {
  localMode?: boolean;
  methods?: string[];
  principals?: Array<{ id: string; roles?: string[]; method?: string; revoked?: boolean }>;
  jwtIssuer?: string;
  jwtAudience?: string;
  jwtRolesClaim?: string;
  grants?: Array<{ subject: string; allow?: string[]; deny?: string[] }>;
  grantsDefault?: boolean;
}

/** The agent API's GetAccess (operators and admins). */
export function loadAccess(): Promise<Access> {
  return call<Access>('agent', 'GetAccess', {});
}

export function AccessSection({ session, seen }: { session: Session; seen: Map<string, Set<string>> }) {
  const { t } = useI18n();
  const access = useLoad(loadAccess, []);
  const a = access.data;
  return (
    <section>
      <h2>{t('access.title')}</h2>
      <p>
        {t('access.you')}: <strong>{session.localMode ? t('session.local') : session.principal}</strong> ({(session.roles ?? []).join(', ')})
      </p>
      <ErrorBox error={access.error} />
      {a?.localMode ? <p>{t('access.local')}</p> : null}
      {a && !a.localMode && (
        <>
          <h3>{t('access.configured')}</h3>
          <table data-testid="configured-principals">
            <thead>
              <tr>
                <th scope="col">{t('audit.principal')}</th>
                <th scope="col">{t('audit.roles')}</th>
                <th scope="col">{t('access.method')}</th>
              </tr>
            </thead>
            <tbody>
              {(a.principals ?? []).map((p) => (
                <tr key={p.id}>
                  <td>
                    <code>{p.id}</code> {p.revoked ? <span className="badge">{t('access.revoked')}</span> : null}
                  </td>
                  <td>{(p.roles ?? []).join(', ')}</td>
                  <td>{p.method}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {a.jwtIssuer ? (
            <p>
              {t('access.jwt')
                .replace('{issuer}', a.jwtIssuer)
                .replace('{audience}', a.jwtAudience ?? '')
                .replace('{claim}', a.jwtRolesClaim ?? '')}
            </p>
          ) : null}
        </>
      )}
      {a && (
        <>
          <h3>{t('access.grants')}</h3>
          {a.grantsDefault ? <p>{t('access.grantsDefault')}</p> : null}
          <table data-testid="grants">
            <thead>
              <tr>
                <th scope="col">{t('access.subject')}</th>
                <th scope="col">{t('access.allow')}</th>
                <th scope="col">{t('access.deny')}</th>
              </tr>
            </thead>
            <tbody>
              {(a.grants ?? []).map((g) => (
                <tr key={g.subject}>
                  <td>
                    <code>{g.subject}</code>
                  </td>
                  <td>{(g.allow ?? []).join(', ')}</td>
                  <td>{(g.deny ?? []).join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <h3>{t('access.seen')}</h3>
      <table data-testid="principals">
        <thead>
          <tr>
            <th scope="col">{t('audit.principal')}</th>
            <th scope="col">{t('audit.roles')}</th>
          </tr>
        </thead>
        <tbody>
          {[...seen].map(([p, roles]) => (
            <tr key={p}>
              <td>{p}</td>
              <td>{[...roles].join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="note">{t('access.note')}</p>
    </section>
  );
}
