// Runs every test file under test/ with node's test runner through tsx, then
// (on full runs) the tests on real etcd again, on etcd 3.5, then the
// differential pass against a real kube-apiserver 1.32 (test/compat/differential),
// the control-plane pass, the chart pass (test/compat/charts), the
// `kubectl hns` plugin pass (test/compat/hns), the aggregation pass
// (test/aggregation) and upstream's conformance specs (test/compat/conformance).
// Node 20's --test takes no recursive globs, so we find the files here.
// Usage: node scripts/run-tests.mjs [substring filter …]
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';

function find(dir) {
  const out = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...find(path));
    else if (entry.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const filters = process.argv.slice(2);
const files = find('test')
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const runFiles = (list, env = process.env) =>
  spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...list], {
    stdio: 'inherit',
    env,
  }).status ?? 1;

// The differential test needs binaries built by Go: it runs in a pass of its own.
const DIFFERENTIAL_DIR = join('test', 'compat', 'differential');
const DIFFERENTIAL_FILES = files.filter((f) => f.startsWith(DIFFERENTIAL_DIR + '/'));
// So does the control-plane test (upstream's controllers, scheduler and kwok on apiary),
// and the kubelet-facing subresources' test against kwok's kubelet server.
const CONTROLPLANE_DIR = join('test', 'compat', 'controlplane');
const KWOK_KUBELET_TEST = join('test', 'kubelet', 'kwok.test.ts');
const CONTROLPLANE_FILES = files.filter((f) => f.startsWith(CONTROLPLANE_DIR + '/') || f === KWOK_KUBELET_TEST);
// And the chart pass (Helm and kubectl on apiary and on kube-apiserver 1.32).
const CHARTS_DIR = join('test', 'compat', 'charts');
const CHARTS_FILES = files.filter((f) => f.startsWith(CHARTS_DIR + '/'));
// And the `kubectl hns` plugin tests (built from test/compat/hns).
const HNS_FILES = files.filter((f) => f.startsWith(join('test', 'tenancy', 'hns-plugin')));
// And the aggregation pass: upstream's extension API servers (sample-apiserver, metrics-server) behind apiary.
const AGGREGATION_FILES = files.filter((f) => f.startsWith(join('test', 'aggregation') + '/'));
// And upstream's conformance specs (the e2e binary built from test/compat/e2e).
const CONFORMANCE_DIR = join('test', 'compat', 'conformance');
const CONFORMANCE_FILES = files.filter((f) => f.startsWith(CONFORMANCE_DIR + '/'));
const firstPass = files.filter(
  (f) =>
    !DIFFERENTIAL_FILES.includes(f) &&
    !CONTROLPLANE_FILES.includes(f) &&
    !CHARTS_FILES.includes(f) &&
    !HNS_FILES.includes(f) &&
    !AGGREGATION_FILES.includes(f) &&
    !CONFORMANCE_FILES.includes(f),
);

let status = firstPass.length > 0 ? runFiles(firstPass) : 0;

/** The newest modification time of the files under dir (bin/ excepted), in ms. */
function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir)) {
    if (entry === 'bin') continue;
    const path = join(dir, entry);
    const stat = statSync(path);
    newest = Math.max(newest, stat.isDirectory() ? newestSource(path) : stat.mtimeMs);
  }
  return newest;
}

/**
 * Builds the Go module in moduleDir into its bin/ (packages: '.' or a list),
 * unless every output is newer than the module's sources (go.mod, go.sum, *.go).
 */
function goBuild(label, moduleDir, packages, outputs, extraArgs = []) {
  const binaries = outputs.map((o) => resolve(moduleDir, 'bin', o));
  const sourcesAt = newestSource(moduleDir);
  if (binaries.every((b) => existsSync(b) && statSync(b).mtimeMs > sourcesAt)) {
    console.log(`\n# ${label}: ${binaries.join(', ')} up to date`);
    return binaries;
  }
  console.log(`\n# ${label}: building ${binaries.join(', ')} (modules are downloaded on the first build)`);
  const output = packages.length === 1 ? binaries[0] : `${resolve(moduleDir, 'bin')}/`;
  const build = spawnSync('go', ['build', ...extraArgs, '-o', output, ...packages], {
    cwd: moduleDir,
    env: { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' },
    stdio: 'inherit',
    timeout: 1_800_000,
  });
  if (build.status !== 0) {
    console.error(`go build of ${label} failed (${build.error?.message ?? build.signal ?? build.status}); Go is required, as for the client-go tests`);
    process.exit(1);
  }
  return binaries;
}

/**
 * Like goBuild, for a test binary: `go test -c` of a package of a required
 * module (upstream's e2e suite is a test package), cached the same way.
 */
function goTestBuild(label, moduleDir, pkg, output, extraArgs = []) {
  const binary = resolve(moduleDir, 'bin', output);
  if (existsSync(binary) && statSync(binary).mtimeMs > newestSource(moduleDir)) {
    console.log(`\n# ${label}: ${binary} up to date`);
    return [binary];
  }
  console.log(`\n# ${label}: building ${binary} (modules are downloaded on the first build; it takes minutes)`);
  const build = spawnSync('go', ['test', '-c', ...extraArgs, '-o', binary, pkg], {
    cwd: moduleDir,
    env: { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' },
    stdio: 'inherit',
    timeout: 2_700_000,
  });
  if (build.status !== 0) {
    console.error(`go test -c of ${label} failed (${build.error?.message ?? build.signal ?? build.status}); Go is required, as for the client-go tests`);
    process.exit(1);
  }
  return [binary];
}

/**
 * Upstream's release builds stamp the version into the binaries (hack/lib/version.sh);
 * without it /version says v0.0.0-master and kubectl cannot parse it. The
 * version is the k8s.io/kubernetes requirement of the module's go.mod.
 */
function kubernetesVersionFlags(moduleDir) {
  const version = /^\s*(?:require\s+)?k8s\.io\/kubernetes (v(\d+)\.(\d+)\.\d+)\s*$/m.exec(readFileSync(join(moduleDir, 'go.mod'), 'utf8'));
  if (!version) throw new Error(`${moduleDir}/go.mod does not require k8s.io/kubernetes vX.Y.Z`);
  const [, gitVersion, major, minor] = version;
  const stamp = (pkg) => [`-X ${pkg}.gitVersion=${gitVersion}`, `-X ${pkg}.gitMajor=${major}`, `-X ${pkg}.gitMinor=${minor}`, `-X ${pkg}.gitTreeState=clean`];
  return ['-ldflags', [...stamp('k8s.io/component-base/version'), ...stamp('k8s.io/client-go/pkg/version')].join(' ')];
}

// Second pass, on full runs: every test on real etcd (the files that use the
// etcd helper, directly or through the two-servers fixture) again, on etcd 3.5
// (built by Go from test/compat/etcd-3.5; its main.go says what differs). The
// first pass runs Debian's etcd 3.4.
const ETCD_HELPERS = ['/helpers/etcd.js', '/helpers/two-servers-etcd.js'];
const ETCD35_FILES = firstPass.filter((f) => {
  const text = readFileSync(f, 'utf8');
  return ETCD_HELPERS.some((h) => text.includes(h));
});
const buildEtcd35 = () => goBuild('etcd 3.5', join('test', 'compat', 'etcd-3.5'), ['.'], ['etcd'])[0];
if (status === 0 && filters.length === 0) {
  const binary = buildEtcd35();
  console.log(`# etcd 3.5: ${ETCD35_FILES.join(', ')}`);
  status = runFiles(ETCD35_FILES, { ...process.env, ETCD_BIN: binary });
}

// Third pass (full runs, and filtered runs that name it): the differential
// test against kube-apiserver and kube-controller-manager 1.32.4 (built from
// test/compat/kubernetes; the first build takes minutes) on etcd 3.5.
const kubernetesDir = join('test', 'compat', 'kubernetes');
const buildKubernetes = () =>
  goBuild(
    'kube-apiserver 1.32',
    kubernetesDir,
    ['./kube-apiserver', './kube-controller-manager', './kube-scheduler'],
    ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'],
    kubernetesVersionFlags(kubernetesDir),
  );
if (status === 0 && DIFFERENTIAL_FILES.length > 0) {
  const etcd = buildEtcd35();
  const [apiserver, controllerManager] = buildKubernetes();
  console.log(`# differential: ${DIFFERENTIAL_FILES.join(', ')}`);
  status = runFiles(DIFFERENTIAL_FILES, {
    ...process.env,
    ETCD35_BIN: etcd,
    KUBE_APISERVER_BIN: apiserver,
    KUBE_CONTROLLER_MANAGER_BIN: controllerManager,
  });
}
// Fourth pass (full runs, and filtered runs that name it): kube-controller-manager,
// kube-scheduler (test/compat/kubernetes) and kwok (test/compat/kwok) run a
// simulated cluster on apiary. Without Go it is skipped, saying so.
const goAvailable = () => spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0;
if (status === 0 && CONTROLPLANE_FILES.length > 0) {
  if (!goAvailable()) {
    console.log('\n# control plane: skipped: `go` is not on PATH (it builds kube-controller-manager, kube-scheduler and kwok)');
  } else {
    const [, controllerManager, scheduler] = buildKubernetes();
    const [kwok] = goBuild('kwok', join('test', 'compat', 'kwok'), ['sigs.k8s.io/kwok/cmd/kwok'], ['kwok']);
    console.log(`# control plane: ${CONTROLPLANE_FILES.join(', ')}`);
    status = runFiles(CONTROLPLANE_FILES, {
      ...process.env,
      KUBE_CONTROLLER_MANAGER_BIN: controllerManager,
      KUBE_SCHEDULER_BIN: scheduler,
      KWOK_BIN: kwok,
    });
  }
}
// Fifth pass (full runs, and filtered runs that name it): the chart pass
// (test/compat/charts): Helm v3.16, built from test/compat/helm, installs,
// upgrades, rolls back and uninstalls charts on apiary and on kube-apiserver 1.32.
if (status === 0 && CHARTS_FILES.length > 0) {
  const etcd = buildEtcd35();
  const [apiserver, controllerManager] = buildKubernetes();
  const [helm] = goBuild('helm 3.16', join('test', 'compat', 'helm'), ['helm.sh/helm/v3/cmd/helm'], ['helm']);
  console.log(`# charts: ${CHARTS_FILES.join(', ')}`);
  status = runFiles(CHARTS_FILES, {
    ...process.env,
    ETCD35_BIN: etcd,
    KUBE_APISERVER_BIN: apiserver,
    KUBE_CONTROLLER_MANAGER_BIN: controllerManager,
    HELM_BIN: helm,
  });
}
// Sixth pass (full runs, and filtered runs that name it): HNC's `kubectl hns`
// plugin v1.1.0, built from test/compat/hns, against `apiary serve`.
if (status === 0 && HNS_FILES.length > 0) {
  const [hns] = goBuild('kubectl-hns 1.1', join('test', 'compat', 'hns'), ['sigs.k8s.io/hierarchical-namespaces/cmd/kubectl'], ['kubectl-hns']);
  console.log(`# kubectl hns: ${HNS_FILES.join(', ')}`);
  status = runFiles(HNS_FILES, { ...process.env, KUBECTL_HNS_BIN: hns });
}
// Seventh pass (full runs, and filtered runs that name it): upstream's extension API
// servers behind apiary's aggregator (test/aggregation): k8s.io/sample-apiserver v0.32
// (test/compat/sample-apiserver) on etcd 3.5, and metrics-server v0.7
// (test/compat/metrics-server) scraping kwok's simulated kubelets for `kubectl top`.
if (status === 0 && AGGREGATION_FILES.length > 0) {
  if (!goAvailable()) {
    console.log('\n# aggregation: skipped: `go` is not on PATH (it builds sample-apiserver, metrics-server, etcd 3.5 and kwok)');
  } else {
    const etcd = buildEtcd35();
    const [sample] = goBuild('sample-apiserver 0.32', join('test', 'compat', 'sample-apiserver'), ['k8s.io/sample-apiserver'], ['sample-apiserver']);
    const [metrics] = goBuild('metrics-server 0.7', join('test', 'compat', 'metrics-server'), ['sigs.k8s.io/metrics-server/cmd/metrics-server'], ['metrics-server']);
    const [kwok] = goBuild('kwok', join('test', 'compat', 'kwok'), ['sigs.k8s.io/kwok/cmd/kwok'], ['kwok']);
    console.log(`# aggregation: ${AGGREGATION_FILES.join(', ')}`);
    status = runFiles(AGGREGATION_FILES, { ...process.env, ETCD35_BIN: etcd, SAMPLE_APISERVER_BIN: sample, METRICS_SERVER_BIN: metrics, KWOK_BIN: kwok });
  }
}
// Eighth pass (full runs, and filtered runs that name it): upstream's
// [Conformance] specs of sig-api-machinery, sig-auth and sig-apps, from the e2e
// binary v1.32.4 (`go test -c k8s.io/kubernetes/test/e2e`, built from
// test/compat/e2e), on apiary and on kube-apiserver 1.32.4, each with
// kube-controller-manager, kube-scheduler and kwok beside it.
if (status === 0 && CONFORMANCE_FILES.length > 0) {
  if (!goAvailable()) {
    console.log('\n# conformance: skipped: `go` is not on PATH (it builds the e2e binary and the control plane)');
  } else {
    const etcd = buildEtcd35();
    const [apiserver, controllerManager, scheduler] = buildKubernetes();
    const [kwok] = goBuild('kwok', join('test', 'compat', 'kwok'), ['sigs.k8s.io/kwok/cmd/kwok'], ['kwok']);
    const e2eDir = join('test', 'compat', 'e2e');
    const [e2e] = goTestBuild('e2e.test 1.32', e2eDir, 'k8s.io/kubernetes/test/e2e', 'e2e.test', kubernetesVersionFlags(e2eDir));
    console.log(`# conformance: ${CONFORMANCE_FILES.join(', ')}`);
    status = runFiles(CONFORMANCE_FILES, {
      ...process.env,
      ETCD35_BIN: etcd,
      KUBE_APISERVER_BIN: apiserver,
      KUBE_CONTROLLER_MANAGER_BIN: controllerManager,
      KUBE_SCHEDULER_BIN: scheduler,
      KWOK_BIN: kwok,
      E2E_TEST_BIN: e2e,
    });
  }
}
process.exit(status);
