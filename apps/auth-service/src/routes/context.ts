import type { Request, Response } from 'express';
import type { Pool } from 'pg';
import { routesFor, type AuditLog } from '@custos/service-kit';
import type { ClientStore } from '../clients/client-store';
import type { KeyStore } from '../keys/key-store';
import type { Clock } from '../ratelimit/failure-limiter';
import type { RevocationStore } from '../revocation/revocation-store';
import type { Revoker } from '../revocation/revoker';

/** What auth's route handlers need. */
export interface AuthRouteDeps {
  /** For changes written with their audit record in one transaction. */
  pool: Pool;
  /** auth's audit trail (audit/trail.ts). */
  audit: AuditLog;
  clients: ClientStore;
  keys: KeyStore;
  revocations: RevocationStore;
  revoker: Revoker;
  clock: Clock;
  /** The token and revocation endpoints, made once with their client authentication and failure limit. */
  issueToken: (req: Request, res: Response) => Promise<void>;
  revokeToken: (req: Request, res: Response) => Promise<void>;
}

export const authRoute = routesFor<AuthRouteDeps>();
