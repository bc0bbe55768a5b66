// --token-auth-file: a CSV of `token,user,uid[,"group1,group2"]`, as
// kube-apiserver reads it (k8s.io/apiserver/pkg/authentication/token/tokenfile).

import fs from 'node:fs';
import type { UserInfo } from '../../machinery/user.js';

/** Splits one CSV record (RFC 4180 quoting). */
function csvFields(line: string): string[] {
  const out: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(field);
      field = '';
    } else field += c;
  }
  out.push(field);
  return out;
}

export function parseTokenFile(text: string, source = 'token file'): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const fields = csvFields(line).map((f) => f.trim());
    if (fields.length < 3) throw new Error(`${source}: line ${index + 1}: token, user name and uid are required`);
    const [token, name, uid] = fields as [string, string, string];
    if (token === '') throw new Error(`${source}: line ${index + 1}: empty token`);
    const groups = fields.length > 3 ? fields[3]!.split(',').map((g) => g.trim()).filter((g) => g !== '') : [];
    tokens.set(token, { name, uid, groups });
  });
  return tokens;
}

export function loadTokenFile(file: string): Map<string, UserInfo> {
  return parseTokenFile(fs.readFileSync(file, 'utf8'), file);
}
