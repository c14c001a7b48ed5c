"""The rule-id catalogue: every diagnostic the loader, validator and planner emit.

Ids read ``<phase>.<reference section>.<name>``: ``P1``..``P4`` are vMCP's
phases (composite-semantics.md section 0), ``K8S`` the Kubernetes API server
and operator, ``W`` warnings about behaviour that passes validation but
surprises (section S), ``LOAD``/``INPUT``/``LIMIT`` the transpiler's own input
handling, ``PLAN`` the planner. ``THV0051`` in place of a section names a rule
of THV-0051's scripted tools (docs/target.md says which the RFC states and which
are the model's choice). Each entry is ``(phase, what it means)``.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

from transpiler.config.model import MAX_ITERATIONS, MAX_PARALLEL

RULES: Final = MappingProxyType(
    {
        # P1: yaml.v3 strict decode and the loader's post-processing
        "P1.yaml.syntax": ("P1", "the YAML does not parse (yaml.v3's message)"),
        "P1.yaml.decode": (
            "P1",
            "a fatal yaml.v3 decode error: tag mismatch, bad !!binary, merge of a non-map",
        ),
        "P1.S7.unknownField": (
            "P1",
            "key not in the Go struct: field X not found in type config.T",
        ),
        "P1.S8.type": ("P1", "value of the wrong YAML kind: cannot unmarshal !!seq into string"),
        "P1.S8.duplicateKey": ("P1", "mapping key already defined"),
        "P1.S6.duration": ("P1", "time.ParseDuration rejects a timeout or retryDelay"),
        "P1.S12.type": ("P1", "parameters lacks type: object"),
        "P1.S12.properties": ("P1", "parameters.properties is not a map"),
        "P1.S12.required": ("P1", "parameters.required is not a list"),
        "P1.extraDocument": ("P1", "warning: vMCP reads only the first document of a config file"),
        # P2: ValidateCompositeToolConfig
        "P2.S13.duplicateName": ("P2", "two composite tools share a name"),
        "P2.S14.name": ("P2", "name is required"),
        "P2.S14.description": ("P2", "description is required"),
        "P2.S14.steps": ("P2", "at least one step"),
        "P2.S14.timeout": ("P2", "negative tool timeout"),
        "P2.S14.parametersType": ("P2", "parameters type missing, not a string or not object"),
        "P2.S14.parametersSchema": ("P2", "parameters does not compile under gojsonschema"),
        "P2.S14.parametersMarshal": (
            "P2",
            "parameters cannot be JSON-encoded (non-string keys, NaN)",
        ),
        "P2.S15.idRequired": ("P2", "a step without id"),
        "P2.S15.idDuplicated": ("P2", "two steps share an id"),
        "P2.S16.toolAndMessage": (
            "P2",
            "tool and message without type (unreachable after P1 and CRD defaults)",
        ),
        "P2.S16.type": ("P2", "type not tool, elicitation or forEach"),
        "P2.S16.toolRequired": ("P2", "tool step without tool"),
        "P2.S16.toolName": ("P2", "tool name not ^[a-zA-Z0-9][a-zA-Z0-9._-]*$"),
        "P2.S16.messageRequired": ("P2", "elicitation step without message"),
        "P2.S17.tool": ("P2", "forEach step with tool"),
        "P2.S17.message": ("P2", "forEach step with message"),
        "P2.S17.collectionRequired": ("P2", "forEach step without collection"),
        "P2.S17.collectionTemplate": ("P2", "collection does not parse as a template"),
        "P2.S17.stepRequired": ("P2", "forEach step without inner step"),
        "P2.S17.innerType": ("P2", "inner step is not a tool step"),
        "P2.S17.innerToolRequired": ("P2", "inner step without tool"),
        "P2.S17.innerToolName": ("P2", "inner tool name invalid"),
        "P2.S17.innerArgumentTemplate": ("P2", "inner top-level argument does not parse"),
        "P2.S17.itemVar": ("P2", "itemVar not a Go identifier"),
        "P2.S17.itemVarIndex": ("P2", "itemVar is the reserved 'index'"),
        "P2.S17.maxParallelNegative": ("P2", "maxParallel < 0"),
        "P2.S17.maxParallel": ("P2", f"maxParallel > {MAX_PARALLEL}"),
        "P2.S17.maxIterationsNegative": ("P2", "maxIterations < 0"),
        "P2.S17.maxIterations": ("P2", f"maxIterations > {MAX_ITERATIONS}"),
        "P2.S18.argumentTemplate": ("P2", "top-level argument string does not parse"),
        "P2.S18.conditionTemplate": ("P2", "condition does not parse"),
        "P2.S18.messageTemplate": ("P2", "message does not parse"),
        "P2.S19.schema": ("P2", "step schema does not compile or encode"),
        "P2.S20.dependsOn": ("P2", "dependsOn names an unknown step"),
        "P2.S21.onErrorAction": ("P2", "onError.action not abort, continue or retry"),
        "P2.S21.retryCount": ("P2", "retry with retryCount < 1"),
        "P2.S22.actionRequired": ("P2", "onDecline/onCancel without action (CLI)"),
        "P2.S22.action": ("P2", "onDecline/onCancel action not abort, continue or skip_remaining"),
        "P2.S22a.cycle": ("P2", "dependency cycle (vMCP names one step, by map order)"),
        "P2.S23.defaultResults": (
            "P2",
            "a skippable step's referenced output field lacks defaultResults",
        ),
        "P2.S23.referenceParse": ("P2", "the defaultResults scan cannot parse a template"),
        # P2: THV-0051's scripted tools (docs/target.md)
        "P2.THV0051.name": ("P2", "a scripted tool without name"),
        "P2.THV0051.duplicateName": ("P2", "two scripted tools share a name"),
        "P2.THV0051.script": ("P2", "no script, or both script and scriptFile"),
        "P2.THV0051.scriptFile": ("P2", "a scriptFile outside its config's folder, or unreadable"),
        "P2.THV0051.size": ("P2", "a script over 1 MiB"),
        "P2.THV0051.syntax": ("P2", "the script does not parse"),
        "P2.THV0051.run": ("P2", "no top-level run(params)"),
        "P2.THV0051.timeout": ("P2", "timeout not a Go duration, or negative"),
        "P2.THV0051.parameters": ("P2", "parameters is not a JSON Schema gojsonschema compiles"),
        "P2.THV0051.output": ("P2", "output is not a JSON Schema gojsonschema compiles"),
        "P2.THV0051.load": ("P2", "note: the modules a script loads come from the library path"),
        # P3: conversion at serve start
        "P3.S30.name": ("P3", "composite tool name is required"),
        "P3.S30.duplicateName": ("P3", "duplicate composite tool name"),
        "P3.S30.steps": ("P3", "workflow must have at least one step"),
        "P3.S30.stepId": ("P3", "step ID is required"),
        "P3.S30.toolRequired": ("P3", "tool name is required for tool steps"),
        "P3.S30.type": ("P3", "invalid step type"),
        "P3.S30.message": ("P3", "elicitation message is required"),
        "P3.S30.schema": ("P3", "elicitation schema is required (absent, null or {})"),
        "P3.S33.innerStepId": (
            "P3",
            "forEach inner step without id (passes validate, fails serve: D18)",
        ),
        # P4: engine validation at serve start
        "P4.S34.tooManySteps": ("P4", "more than 100 top-level steps"),
        "P4.S34.duplicateStepId": ("P4", "duplicate step ID"),
        "P4.S34.cycle": ("P4", "circular dependency (DFS in step order)"),
        "P4.S34.collection": ("P4", "forEach without collection"),
        "P4.S34.innerStep": ("P4", "forEach without inner step"),
        "P4.S34.dependsOn": ("P4", "depends on non-existent step"),
        "P4.S35.noProperties": ("P4", "output properties cannot be empty"),
        "P4.S35.required": ("P4", "required output field not in properties"),
        "P4.S35.depth": ("P4", "output properties nested deeper than 10"),
        "P4.S35.type": ("P4", "output property type missing or invalid"),
        "P4.S35.description": ("P4", "output property without description (D20)"),
        "P4.S35.valueAndProperties": ("P4", "output property with both value and properties"),
        "P4.S35.valueOrProperties": ("P4", "output property with neither value nor properties"),
        "P4.S35.value": ("P4", "non-object output property without value"),
        "P4.S35.template": ("P4", "output value with unbalanced {{ }}"),
        "P4.S35.default": ("P4", "output default of an incompatible Go type"),
        # Kubernetes
        "K8S.admission.unknownField": (
            "admission",
            "field not in the CRD schema (rejected by strict validation, pruned otherwise)",
        ),
        "K8S.admission.type": ("admission", "value of the wrong JSON type"),
        "K8S.admission.enum": ("admission", "value outside the CRD enum"),
        "K8S.admission.pattern": ("admission", "duration does not match the CRD pattern"),
        "K8S.admission.required": ("admission", "required field missing"),
        "K8S.yaml": (
            "admission",
            "the manifest's YAML cannot be converted (duplicate keys: a warning)",
        ),
        "K8S.kindUnknown": (
            "admission",
            "a VirtualMCPScriptedToolDefinition where the target has no such CRD",
        ),
        "K8S.duplicateInline": ("P2", "two inline tools of a VirtualMCPServer share a name"),
        "K8S.duplicateName": ("operator", "an inline and a referenced tool share a name"),
        "K8S.refNotFound": (
            "operator",
            "compositeToolRefs (or scriptedToolRefs) names a definition not among the inputs",
        ),
        # Warnings (pass validation, surprise at run time)
        "W.D13.skipRemaining": ("P6", "skip_remaining skips nothing"),
        "W.D25.retryFallback": (
            "P6",
            "a fallback conditioned on a retrying step's failure never runs",
        ),
        "W.D29.messageIgnored": ("P1", "tool and message without type: the message is ignored"),
        "W.D30.conditionParam": (
            "P6",
            "a condition reads a parameter without default (<no value> is an error)",
        ),
        "W.S2.ignoredField": ("P6", "a key the step's type ignores"),
        "W.R2.race": ("P6", "a step reads a step that dependsOn does not order before it"),
        "W.R2.implicitOrder": ("P6", "a read ordered only by the level barrier, not by dependsOn"),
        "W.plan.unknownStep": ("P6", "a template reads a step that does not exist"),
        "PLAN.noOrder": ("P4", "no execution order (cycle or unknown dependency)"),
        "W.THV0051.nameConflict": ("P5", "a scripted and a composite tool share a name"),
        "W.THV0051.kubernetesScriptFile": (
            "P2",
            "a scriptFile in a Kubernetes resource: read from the pod, which nothing fills",
        ),
        # The transpiler's own input handling
        "LOAD.refsUnresolvable": (
            "P1",
            "warning: compositeToolRefs in a CLI config cannot be resolved",
        ),
        "LOAD.snakeCase": (
            "P1",
            "note: a top-level key in snake_case (the legacy layout) whose camelCase vMCP reads",
        ),
        "LOAD.target": (
            "P1",
            "note: a key the target does not load, and the target that does",
        ),
        "LOAD.fragment": ("load", "a step list, not a composite tool: skipped"),
        "LOAD.snippet": ("load", "a manifest snippet without apiVersion/kind, read by its shape"),
        "LOAD.skipped": ("load", "a document with no composite tools: skipped"),
        "LOAD.emptyDocument": ("load", "an empty document: skipped"),
        "INPUT.unreadable": ("load", "a file that cannot be read or exceeds the size limit"),
        "LIMIT.depth": ("load", "nesting deeper than the transpiler reads (a deviation)"),
        "LIMIT.tools": ("load", "more composite tools in one file than the transpiler reads"),
        "LIMIT.documents": ("load", "more YAML documents in one file than the transpiler reads"),
        "LIMIT.aliases": ("P1", "alias expansion past yaml.v3's ratio or the transpiler's budget"),
    }
)
