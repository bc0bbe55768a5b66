// The charts of the chart pass (fixtures/README.md says where each comes from
// and which hook jobs are off): how each is installed and upgraded, and one
// custom resource of every CRD it installs.

export interface ChartFixture {
  /** Release name and the fixture's file name (fixtures/<name>.tgz). */
  name: string;
  /** `--set` values of the install (hook jobs that need running pods are turned off here); `{ns}` is the namespace. */
  install: string[];
  /** `--set` values of the upgrade: a changed value. */
  upgrade: string[];
  /** A custom resource of each CRD the chart installs, as YAML (namespaced ones go to the kubectl namespace). */
  customResources: string[];
  /** Helm's --no-hooks on every Helm step: for a chart whose hooks no value turns off. */
  noHooks?: boolean;
}

const cr = (apiVersion: string, kind: string, name: string, spec: string): string =>
  `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: ${name}\nspec:\n${spec.replace(/^/gm, '  ')}\n`;

export const corpus: ChartFixture[] = [
  {
    name: 'ingress-nginx',
    // the admission webhook's certificate is made and patched in by hook Jobs (pods)
    install: ['controller.admissionWebhooks.enabled=false'],
    upgrade: ['controller.admissionWebhooks.enabled=false', 'controller.replicaCount=2'],
    customResources: [],
  },
  {
    name: 'postgresql',
    // a fixed password: the chart otherwise generates one, and an upgrade must repeat it
    install: ['auth.postgresPassword=secret-pw'],
    upgrade: ['auth.postgresPassword=secret-pw', 'primary.podAnnotations.revision=two'],
    customResources: [],
  },
  {
    name: 'prometheus-operator-crds',
    install: [],
    upgrade: ['setting=two'],
    customResources: [
      // the rule of issue 34 item 1 is on sigv4, under receivers[].snsConfigs[]
      cr('monitoring.coreos.com/v1alpha1', 'AlertmanagerConfig', 'amc', 'receivers:\n- name: sns\n  snsConfigs:\n  - topicARN: arn:aws:sns:us-east-1:1:t\n    sigv4:\n      region: us-east-1\n      roleArn: arn:aws:iam::1:role/r\nroute:\n  receiver: sns'),
      cr('monitoring.coreos.com/v1', 'ServiceMonitor', 'sm', 'selector:\n  matchLabels:\n    app: web\nendpoints:\n- port: http\n  interval: 30s'),
      cr('monitoring.coreos.com/v1', 'PodMonitor', 'pm', 'selector:\n  matchLabels:\n    app: web\npodMetricsEndpoints:\n- port: http'),
      cr('monitoring.coreos.com/v1', 'PrometheusRule', 'pr', 'groups:\n- name: g\n  rules:\n  - alert: Down\n    expr: up == 0\n    for: 5m'),
      cr('monitoring.coreos.com/v1', 'Probe', 'probe', 'prober:\n  url: blackbox:9115\ntargets:\n  staticConfig:\n    static:\n    - https://example.com'),
    ],
  },
  {
    name: 'gateway-api-crds',
    install: [],
    upgrade: ['setting=two'],
    customResources: [
      `apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata:\n  name: gc-{ns}\nspec:\n  controllerName: example.com/gateway\n`,
      cr('gateway.networking.k8s.io/v1', 'Gateway', 'gw', 'gatewayClassName: gc\nlisteners:\n- name: http\n  protocol: HTTP\n  port: 80'),
      cr('gateway.networking.k8s.io/v1', 'HTTPRoute', 'route', 'parentRefs:\n- name: gw\nhostnames:\n- example.com\nrules:\n- matches:\n  - path:\n      type: PathPrefix\n      value: /api\n  backendRefs:\n  - name: web\n    port: 80'),
      cr('gateway.networking.k8s.io/v1', 'GRPCRoute', 'grpc', 'parentRefs:\n- name: gw\nrules:\n- backendRefs:\n  - name: web\n    port: 9000'),
      cr('gateway.networking.k8s.io/v1beta1', 'ReferenceGrant', 'grant', 'from:\n- group: gateway.networking.k8s.io\n  kind: HTTPRoute\n  namespace: other\nto:\n- group: ""\n  kind: Service'),
    ],
  },
  {
    name: 'cert-manager-crds',
    install: [],
    upgrade: ['setting=two'],
    customResources: [
      cr('cert-manager.io/v1', 'Issuer', 'selfsigned', 'selfSigned: {}'),
      `apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata:\n  name: ci-{ns}\nspec:\n  selfSigned: {}\n`,
      cr('cert-manager.io/v1', 'Certificate', 'cert', 'secretName: cert-tls\ndnsNames:\n- example.com\nissuerRef:\n  name: selfsigned\n  kind: Issuer'),
      cr('cert-manager.io/v1', 'CertificateRequest', 'req', 'request: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K\nissuerRef:\n  name: selfsigned'),
      cr('acme.cert-manager.io/v1', 'Order', 'order', 'request: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K\nissuerRef:\n  name: selfsigned\ndnsNames:\n- example.com'),
      cr('acme.cert-manager.io/v1', 'Challenge', 'challenge', 'url: https://acme.example.com/c/1\nauthorizationURL: https://acme.example.com/a/1\ndnsName: example.com\ntype: HTTP-01\ntoken: t\nkey: k\nsolver:\n  http01:\n    ingress: {}\nissuerRef:\n  name: selfsigned'),
    ],
  },
  {
    name: 'argo-cd',
    // the pre-install/pre-upgrade hook Job that makes the Redis password needs a running pod
    install: ['redisSecretInit.enabled=false'],
    upgrade: ['redisSecretInit.enabled=false', 'server.replicas=2'],
    customResources: [
      cr('argoproj.io/v1alpha1', 'AppProject', 'team', "description: a team\nsourceRepos:\n- '*'\ndestinations:\n- namespace: '*'\n  server: https://kubernetes.default.svc"),
      cr('argoproj.io/v1alpha1', 'Application', 'guestbook', 'project: team\nsource:\n  repoURL: https://github.com/argoproj/argocd-example-apps.git\n  path: guestbook\n  targetRevision: HEAD\ndestination:\n  server: https://kubernetes.default.svc\n  namespace: guestbook\nsyncPolicy:\n  automated:\n    prune: true\n    selfHeal: false'),
      cr('argoproj.io/v1alpha1', 'ApplicationSet', 'set', 'generators:\n- list:\n    elements:\n    - cluster: in-cluster\ntemplate:\n  metadata:\n    name: "{{cluster}}-app"\n  spec:\n    project: default\n    source:\n      repoURL: https://github.com/argoproj/argocd-example-apps.git\n      path: guestbook\n    destination:\n      server: https://kubernetes.default.svc\n      namespace: guestbook'),
    ],
  },
  {
    name: 'velero',
    // the CRD upgrade hook Job (pre-install/pre-upgrade/pre-rollback) runs kubectl in a pod
    // and no default BackupStorageLocation/VolumeSnapshotLocation: they need a provider's configuration
    install: ['upgradeCRDs=false', 'backupsEnabled=false', 'snapshotsEnabled=false'],
    upgrade: ['upgradeCRDs=false', 'backupsEnabled=false', 'snapshotsEnabled=false', 'podAnnotations.revision=two'],
    customResources: [
      cr('velero.io/v1', 'BackupStorageLocation', 'default', 'provider: aws\nobjectStorage:\n  bucket: backups\nconfig:\n  region: us-east-1'),
      cr('velero.io/v1', 'Backup', 'nightly', 'includedNamespaces:\n- default\nttl: 720h0m0s\nstorageLocation: default'),
      cr('velero.io/v1', 'Schedule', 'daily', "schedule: '0 1 * * *'\ntemplate:\n  includedNamespaces:\n  - '*'"),
      cr('velero.io/v1', 'Restore', 'restore', 'backupName: nightly'),
    ],
  },
  {
    name: 'crossplane',
    install: [],
    upgrade: ['replicas=2'],
    customResources: [],
  },
  {
    name: 'external-secrets-crds',
    install: [],
    upgrade: ['setting=two'],
    customResources: [
      cr('external-secrets.io/v1', 'SecretStore', 'fake', 'provider:\n  fake:\n    data:\n    - key: /db/password\n      value: s3cret'),
      cr('external-secrets.io/v1', 'ExternalSecret', 'db', 'refreshInterval: 1h\nsecretStoreRef:\n  name: fake\n  kind: SecretStore\ntarget:\n  name: db\ndata:\n- secretKey: password\n  remoteRef:\n    key: /db/password'),
      `apiVersion: external-secrets.io/v1\nkind: ClusterSecretStore\nmetadata:\n  name: css-{ns}\nspec:\n  provider:\n    fake:\n      data: []\n`,
      cr('external-secrets.io/v1alpha1', 'PushSecret', 'push', 'secretStoreRefs:\n- name: fake\n  kind: SecretStore\nselector:\n  secret:\n    name: db\ndata:\n- match:\n    secretKey: password\n    remoteRef:\n      remoteKey: /db/copy'),
      cr('generators.external-secrets.io/v1alpha1', 'Password', 'pw', 'length: 32\ndigits: 5\nsymbols: 5\nnoUpper: false\nallowRepeat: true'),
    ],
  },
  {
    name: 'istio-base',
    // the chart puts its ServiceAccount in istio-system unless told the namespace
    install: ['global.istioNamespace={ns}'],
    upgrade: ['global.istioNamespace={ns}', 'base.validationFailurePolicy=Ignore'],
    customResources: [
      cr('networking.istio.io/v1', 'VirtualService', 'reviews', 'hosts:\n- reviews\nhttp:\n- route:\n  - destination:\n      host: reviews\n      subset: v1\n    weight: 100'),
      cr('networking.istio.io/v1', 'DestinationRule', 'reviews', 'host: reviews\nsubsets:\n- name: v1\n  labels:\n    version: v1\ntrafficPolicy:\n  tls:\n    mode: ISTIO_MUTUAL'),
      cr('security.istio.io/v1', 'PeerAuthentication', 'default', 'mtls:\n  mode: STRICT'),
      cr('security.istio.io/v1', 'AuthorizationPolicy', 'deny', 'action: DENY\nrules:\n- from:\n  - source:\n      notNamespaces:\n      - prod'),
      cr('networking.istio.io/v1', 'Gateway', 'ingress', "selector:\n  istio: ingressgateway\nservers:\n- port:\n    number: 80\n    name: http\n    protocol: HTTP\n  hosts:\n  - '*'"),
    ],
  },
  {
    name: 'knative-serving-crds',
    install: [],
    upgrade: ['setting=two'],
    customResources: [
      cr('serving.knative.dev/v1', 'Service', 'hello', 'template:\n  spec:\n    containers:\n    - image: ghcr.io/knative/helloworld-go:latest\n      env:\n      - name: TARGET\n        value: World'),
      cr('serving.knative.dev/v1', 'Configuration', 'config', 'template:\n  spec:\n    containers:\n    - image: ghcr.io/knative/helloworld-go:latest'),
      cr('serving.knative.dev/v1', 'Route', 'route', 'traffic:\n- configurationName: config\n  percent: 100'),
      cr('serving.knative.dev/v1beta1', 'DomainMapping', 'example.com', 'ref:\n  name: hello\n  kind: Service\n  apiVersion: serving.knative.dev/v1'),
    ],
  },
  {
    name: 'strimzi-kafka-operator',
    install: [],
    upgrade: ['replicas=2'],
    customResources: [
      cr('kafka.strimzi.io/v1', 'Kafka', 'cluster', 'kafka:\n  listeners:\n  - name: plain\n    port: 9092\n    type: internal\n    tls: false\nentityOperator:\n  topicOperator: {}\n  userOperator: {}'),
      cr('kafka.strimzi.io/v1', 'KafkaNodePool', 'pool', 'replicas: 3\nroles:\n- broker\n- controller\nstorage:\n  type: ephemeral'),
      cr('kafka.strimzi.io/v1', 'KafkaTopic', 'orders', 'partitions: 3\nreplicas: 3\nconfig:\n  retention.ms: 604800000'),
      cr('kafka.strimzi.io/v1', 'KafkaUser', 'app', 'authentication:\n  type: scram-sha-512\nauthorization:\n  type: simple\n  acls:\n  - resource:\n      type: topic\n      name: orders\n    operations:\n    - Read'),
    ],
  },
  {
    name: 'flux2',
    // its pre-install hook Job (flux check) needs a running pod, and no value turns it off
    install: [],
    upgrade: ['logLevel=debug'],
    noHooks: true,
    customResources: [
      cr('source.toolkit.fluxcd.io/v1', 'GitRepository', 'podinfo', 'interval: 1m\nurl: https://github.com/stefanprodan/podinfo\nref:\n  branch: master'),
      cr('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'podinfo', 'interval: 10m\npath: ./kustomize\nprune: true\nsourceRef:\n  kind: GitRepository\n  name: podinfo'),
      cr('source.toolkit.fluxcd.io/v1', 'HelmRepository', 'bitnami', 'interval: 1h\nurl: https://charts.example.com'),
      cr('helm.toolkit.fluxcd.io/v2', 'HelmRelease', 'redis', 'interval: 10m\nchart:\n  spec:\n    chart: redis\n    sourceRef:\n      kind: HelmRepository\n      name: bitnami'),
    ],
  },
  {
    name: 'opentelemetry-operator',
    // its admission and CRD conversion webhooks need the operator's pod (and a certificate from
    // cert-manager or the chart); without them the CRDs are served without conversion
    install: ['admissionWebhooks.create=false'],
    upgrade: ['admissionWebhooks.create=false', 'replicaCount=2'],
    customResources: [
      cr('opentelemetry.io/v1beta1', 'OpenTelemetryCollector', 'otel', 'mode: deployment\nconfig:\n  receivers:\n    otlp:\n      protocols:\n        grpc: {}\n  exporters:\n    debug: {}\n  service:\n    pipelines:\n      traces:\n        receivers: [otlp]\n        exporters: [debug]'),
      cr('opentelemetry.io/v1alpha1', 'Instrumentation', 'auto', 'exporter:\n  endpoint: http://otel-collector:4317\npropagators:\n- tracecontext\n- baggage\nsampler:\n  type: parentbased_traceidratio\n  argument: "0.25"'),
    ],
  },
  {
    name: 'argo-rollouts',
    install: [],
    upgrade: ['controller.replicas=2'],
    customResources: [
      cr('argoproj.io/v1alpha1', 'Rollout', 'web', "replicas: 3\nselector:\n  matchLabels:\n    app: web\ntemplate:\n  metadata:\n    labels:\n      app: web\n  spec:\n    containers:\n    - name: web\n      image: nginx:1.25\nstrategy:\n  canary:\n    steps:\n    - setWeight: 20\n    - pause: {duration: 1h}"),
      cr('argoproj.io/v1alpha1', 'AnalysisTemplate', 'success-rate', "metrics:\n- name: success-rate\n  interval: 5m\n  successCondition: result[0] >= 0.95\n  provider:\n    prometheus:\n      address: http://prometheus:9090\n      query: sum(rate(http_requests_total[5m]))"),
      cr('argoproj.io/v1alpha1', 'Experiment', 'exp', "duration: 1h\ntemplates:\n- name: baseline\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25"),
    ],
  },
];
