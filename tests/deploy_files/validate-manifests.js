#!/usr/bin/env node
// Checks Kubernetes manifests offline, against the API of the Kubernetes release that kubernetes-models was
// generated from (4.5.1, the last major that runs on Node.js before 22, has the fields of Kubernetes 1.33):
//   1. YAML: every file parses, without duplicate keys;
//   2. schema: each document's apiVersion and kind name a resource of that API, and the document passes that
//      resource's OpenAPI schema (required fields, types, formats, enums: kubernetes-models' validate());
//   3. strict fields: the OpenAPI schemas accept unknown fields (the API server drops or refuses them at apply
//      time), so each document is also type-checked by TypeScript against the same release's interfaces, where
//      a misspelt or misplaced field is an error.
// Usage: node validate-manifests.js FILE.yaml...   Exit 0 when every document passes, 1 otherwise.
"use strict";
const fs = require("fs");
const path = require("path");
const YAML = require("yaml");
const ts = require("typescript");

function modulePath(apiVersion, kind) {
  // "v1" is the core group; "apps/v1" -> apps/v1; kubernetes-models keeps one directory per group and version.
  return `kubernetes-models/${apiVersion}/${kind}`;
}

const problems = [];
const documents = [];
for (const file of process.argv.slice(2)) {
  const text = fs.readFileSync(file, "utf8");
  const parsed = YAML.parseAllDocuments(text, { uniqueKeys: true, prettyErrors: true });
  parsed.forEach((doc, index) => {
    const where = `${file}: document ${index + 1}`;
    for (const error of [...doc.errors, ...doc.warnings]) problems.push(`${where}: YAML: ${error.message}`);
    if (doc.errors.length) return;
    const object = doc.toJS();
    if (object === null || object === undefined) return;
    const label = `${where} (${object.kind} ${object.metadata && object.metadata.name})`;
    if (typeof object.apiVersion !== "string" || typeof object.kind !== "string") {
      problems.push(`${label}: no apiVersion or kind`);
      return;
    }
    let Model;
    try {
      Model = require(modulePath(object.apiVersion, object.kind))[object.kind];
    } catch (error) {
      problems.push(`${label}: ${object.apiVersion} ${object.kind} is not a resource of the Kubernetes API`);
      return;
    }
    try {
      new Model(object).validate();
    } catch (error) {
      problems.push(`${label}: schema: ${error.message}`);
    }
    documents.push({ label, object });
  });
}

// The strict field check: one TypeScript constant per document, typed with the resource's interface.
const checkFile = path.join(__dirname, "__manifests__.ts");
let source = "";
const firstLines = [];
documents.forEach(({ object }, index) => {
  source += `import type { I${object.kind} as T${index} } from "${modulePath(object.apiVersion, object.kind)}";\n`;
});
documents.forEach(({ object }, index) => {
  firstLines.push(source.split("\n").length);
  source += `export const doc${index}: T${index} = ${JSON.stringify(object, null, 2)};\n`;
});
const options = {
  strict: true, noEmit: true, skipLibCheck: true, types: [],
  module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10, target: ts.ScriptTarget.ES2019,
};
const host = ts.createCompilerHost(options);
const readFile = host.readFile.bind(host);
const fileExists = host.fileExists.bind(host);
const getSourceFile = host.getSourceFile.bind(host);
host.readFile = (name) => (name === checkFile ? source : readFile(name));
host.fileExists = (name) => name === checkFile || fileExists(name);
host.getSourceFile = (name, version, ...rest) =>
  name === checkFile ? ts.createSourceFile(name, source, version) : getSourceFile(name, version, ...rest);
const program = ts.createProgram([checkFile], options, host);
for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n  ");
  if (!diagnostic.file || diagnostic.file.fileName !== checkFile) {
    problems.push(`type check: ${message}`);
    continue;
  }
  const line = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1;
  let index = firstLines.length - 1;
  while (index > 0 && firstLines[index] > line) index -= 1;
  const label = line < firstLines[0] ? "imports" : documents[index].label;
  problems.push(`${label}: fields: ${message}`);
}

for (const problem of problems) console.error(problem);
if (problems.length) {
  console.error(`${problems.length} problem(s) in ${documents.length} document(s)`);
  process.exit(1);
}
console.log(`${documents.length} document(s) valid`);
