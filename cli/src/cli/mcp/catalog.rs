//! The upstream's tools and the policy of each: the tool's own `_meta["oncely/policy"]`, else the
//! gateway's policy file (tool name → policy), else its MCP annotations — resolved, and checked,
//! by the core's release check over the whole list.

use crate::cli::render;
use anyhow::{Context, Result};
use oncely::wit::policy::{ManifestReport, ToolPolicy};
use oncely::Runtime;
use rmcp::model::Tool;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The `_meta` member where the gateway shows a tool's effective class.
pub const CLASS_META: &str = "oncely/class";
const POLICY_META: &str = "oncely/policy";

/// The upstream's tools with their policies.
#[derive(Debug)]
pub struct Catalog {
    /// Tool name → its policy (tools whose policy could not be read are absent).
    pub policies: HashMap<String, ToolPolicy>,
    /// Tool name → its input schema (for lookups).
    pub schemas: HashMap<String, Map<String, Value>>,
    /// Tool name → why its policy could not be read.
    pub invalid: HashMap<String, String>,
    /// The release check over the list.
    pub report: ManifestReport,
}

/// Read a policy file: a JSON object of tool name → policy.
pub fn read_policy_file(path: &std::path::Path) -> Result<Map<String, Value>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    match serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))? {
        Value::Object(m) => Ok(m),
        _ => anyhow::bail!("{}: a policy file is a JSON object of tool name → policy", path.display()),
    }
}

impl Catalog {
    /// No tools yet.
    pub fn empty() -> Catalog {
        let report = ManifestReport { passed: true, tools: Vec::new(), findings: Vec::new() };
        Catalog { policies: HashMap::new(), schemas: HashMap::new(), invalid: HashMap::new(), report }
    }

    /// Resolve the policies of `tools`, given the policy file's entries.
    pub fn resolve(rt: &Runtime, tools: &[Tool], file: &Map<String, Value>) -> Result<Catalog> {
        let mut list = Vec::with_capacity(tools.len());
        let mut schemas = HashMap::new();
        for t in tools {
            let mut v = serde_json::to_value(t)?;
            if let (Some(policy), Some(obj)) = (file.get(t.name.as_ref()), v.as_object_mut()) {
                let meta = obj.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
                if let Some(meta) = meta.as_object_mut() {
                    meta.entry(POLICY_META).or_insert_with(|| policy.clone());
                }
            }
            schemas.insert(t.name.to_string(), (*t.input_schema).clone());
            list.push(v);
        }
        let report = rt.check_manifest(&serde_json::to_string(&serde_json::json!({ "tools": list }))?)?;
        let policies = report.tools.iter().map(|t| (t.name.clone(), t.policy.clone())).collect::<HashMap<_, _>>();
        let invalid = report
            .findings
            .iter()
            .filter(|f| f.code == "invalid-tool")
            .filter_map(|f| Some((f.tool.clone()?, f.message.clone())))
            .collect();
        Ok(Catalog { policies, schemas, invalid, report })
    }

    /// The tools as the gateway lists them: as the upstream gave them, with the effective class
    /// in `_meta["oncely/class"]`.
    pub fn annotate(&self, tools: &mut [Tool]) {
        for t in tools {
            if let Some(p) = self.policies.get(t.name.as_ref()) {
                t.meta.get_or_insert_with(Default::default).0.insert(CLASS_META.into(), Value::from(render::class(p.class)));
            }
        }
    }

    /// The check's findings, one line each, as `oncely check` prints them.
    pub fn findings(&self) -> Vec<String> {
        self.report
            .findings
            .iter()
            .map(|f| format!("{}: {} [{}] {}", render::severity(f.severity), f.tool.as_deref().unwrap_or("-"), f.code, f.message))
            .collect()
    }
}
