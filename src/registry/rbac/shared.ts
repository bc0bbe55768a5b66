// What the four RBAC kinds share: no status; names are path segments
// (upstream's ValidateRBACName); PUT may create. Escalation checks wrap these
// stores in the server (server/rbac-escalation.ts).
import { pathSegmentName } from '../../machinery/validation.js';

export const rbacCommon = { nameValidator: pathSegmentName, allowCreateOnUpdate: true, allowUnconditionalUpdate: true, returnDeletedObject: false } as const;
