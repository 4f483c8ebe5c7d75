/**
 * The local gateway's role catalogue (passed to the handlers as `SIGNET_ROLE_CATALOGUE`), the
 * same as the deployed stack's default:
 *
 * | role             | may call         | held by                      |
 * |------------------|------------------|------------------------------|
 * | `registry:admin` | `* /registry/**` | `$SIGNET_HOME/admin`         |
 * | `demo`           | `* /api/*`       | `$SIGNET_HOME/demo`          |
 *
 * Set `SIGNET_ROLE_CATALOGUE` yourself before `npm start` to try another catalogue.
 */
import { DEFAULT_ROLE_CATALOGUE } from '../lambda/config-env';
import { REGISTRY_ADMIN_ROLE } from '../lambda/core/defaults';
import type { RoleCatalogue } from '../lambda/core/role-policy';

/** The demo client's role: any method on `/api/*` (the echo backend). */
export const DEMO_ROLE = 'demo';

/** The admin client's role. */
export const ADMIN_ROLE = REGISTRY_ADMIN_ROLE;

/** `registry:admin` → `* /registry/**`, `demo` → `* /api/*`. */
export const LOCAL_ROLE_CATALOGUE: RoleCatalogue = Object.freeze({
  ...DEFAULT_ROLE_CATALOGUE,
  [DEMO_ROLE]: Object.freeze(['* /api/*']),
});
