// The kubelet client flags kube-apiserver and `apiary serve` share:
// --kubelet-client-certificate, --kubelet-client-key,
// --kubelet-certificate-authority, --kubelet-preferred-address-types.

import path from 'node:path';
import { preferredAddressTypeProblems, type KubeletClientOptions } from '../server/proxy/kubelet.js';

/** The server's kubelet options from the flags (undefined: all at their defaults); `bad` reports an invalid flag and does not return. */
export function kubeletOptionsFrom(get: (name: string) => string | undefined, bad: (message: string) => never): KubeletClientOptions | undefined {
  const options: KubeletClientOptions = {};
  const cert = get('kubelet-client-certificate');
  const key = get('kubelet-client-key');
  const ca = get('kubelet-certificate-authority');
  if ((cert === undefined || cert === '') !== (key === undefined || key === '')) bad('--kubelet-client-certificate and --kubelet-client-key must be given together');
  if (cert !== undefined && cert !== '') options.clientCertificateFile = path.resolve(cert);
  if (key !== undefined && key !== '') options.clientKeyFile = path.resolve(key);
  if (ca !== undefined && ca !== '') options.certificateAuthorityFile = path.resolve(ca);
  const types = get('kubelet-preferred-address-types');
  if (types !== undefined) {
    const list = types.split(',').map((s) => s.trim()).filter((s) => s !== '');
    const problems = preferredAddressTypeProblems(list);
    if (problems.length > 0) bad(`--kubelet-preferred-address-types: ${problems.join(', ')}`);
    options.preferredAddressTypes = list;
  }
  return Object.keys(options).length > 0 ? options : undefined;
}
