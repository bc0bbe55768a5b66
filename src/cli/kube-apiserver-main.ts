#!/usr/bin/env node
// The `kube-apiserver` executable the package installs (node_modules/.bin):
// `apiary kube-apiserver` under upstream's name, for envtest's
// TEST_ASSET_KUBE_APISERVER / KUBEBUILDER_ASSETS.

import { kubeApiserverCommand } from './kube-apiserver.js';

kubeApiserverCommand(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`kube-apiserver: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
