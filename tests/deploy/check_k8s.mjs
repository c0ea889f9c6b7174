// Schema check of the Kubernetes manifests without a cluster: every document of deploy/k8s/*.yaml
// must validate against the Kubernetes OpenAPI schema of its kind (kubernetes-models: types,
// required fields, enums), and the sharding must be consistent: an Indexed Job whose
// completions equal its SHARDS, which passes JOB_COMPLETION_INDEX as K of --shard K/N, and
// volumes that exist. With --commands, prints each Job's shell command and environment as one
// JSON line, so the test can run the very commands locally.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { Job } from "kubernetes-models/batch/v1/Job";
import { PersistentVolumeClaim } from "kubernetes-models/v1/PersistentVolumeClaim";

const models = { "batch/v1/Job": Job, "v1/PersistentVolumeClaim": PersistentVolumeClaim };
const folder = process.argv[2];
const printCommands = process.argv.includes("--commands");
const problems = [];
const claims = new Set();
const jobs = [];
const files = readdirSync(folder).filter((f) => f.endsWith(".yaml")).sort();
if (files.length === 0) problems.push(`${folder}: no manifest`);
for (const file of files) {
  for (const document of parseAllDocuments(readFileSync(join(folder, file), "utf8"))) {
    if (document.errors.length > 0) {
      problems.push(`${file}: YAML: ${document.errors[0].message}`);
      continue;
    }
    const object = document.toJS();
    const where = `${file}: ${object.kind} ${object.metadata?.name}`;
    const Model = models[`${object.apiVersion}/${object.kind}`];
    if (!Model) {
      problems.push(`${where}: no schema for ${object.apiVersion} ${object.kind}`);
      continue;
    }
    try {
      new Model(object).validate();
    } catch (error) {
      problems.push(`${where}: ${error.message}`);
      continue;
    }
    if (object.kind === "PersistentVolumeClaim") claims.add(object.metadata.name);
    if (object.kind === "Job") jobs.push({ where, object });
  }
}
const envOf = (container) => Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));
for (const { where, object } of jobs) {
  const pod = object.spec.template.spec;
  const volumes = new Map((pod.volumes ?? []).map((v) => [v.name, v]));
  for (const container of pod.containers) {
    for (const mount of container.volumeMounts ?? []) {
      if (!volumes.has(mount.name)) problems.push(`${where}: mounts unknown volume ${mount.name}`);
    }
    const script = (container.args ?? []).join(" ");
    const env = envOf(container);
    if (object.spec.completionMode === "Indexed") {
      if (String(object.spec.completions) !== env.SHARDS) {
        problems.push(`${where}: completions ${object.spec.completions} but SHARDS ${env.SHARDS}`);
      }
      if (!script.includes('--shard "$JOB_COMPLETION_INDEX/$SHARDS"')) {
        problems.push(`${where}: the shard is not --shard "$JOB_COMPLETION_INDEX/$SHARDS"`);
      }
    }
    if (printCommands) {
      console.log(JSON.stringify({ job: object.metadata.name, indexed: object.spec.completionMode === "Indexed", script, env }));
    }
  }
  for (const volume of volumes.values()) {
    const claim = volume.persistentVolumeClaim?.claimName;
    if (claim && !claims.has(claim)) problems.push(`${where}: no PersistentVolumeClaim ${claim}`);
  }
}
if (jobs.length === 0) problems.push(`${folder}: no Job`);
for (const problem of problems) console.error(problem);
if (problems.length > 0) process.exit(1);
if (!printCommands) console.log(`${files.length} manifest(s), ${jobs.length} Job(s): valid`);
