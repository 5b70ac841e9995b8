//! The agent side (`wit/agent.wit`): which intent a tool call is (scope, run, step and the key
//! spec to key it with, from what the host knows of the call), and what the model reads when the
//! call does not simply return. The adapters of every language and the MCP gateway only gather
//! the context and deliver the answer; the fallbacks, the refusals and the sentences are here.

use crate::agent_wit::{ApprovalForm, CallContext, Failure, Guest, Identity, IdentityError, IdentityErrorKind, Origin, Reply, ReplyCode};
use crate::effect_wit::EffectError;
use crate::json::{self, Value};
use crate::keys_wit::{KeyErrorKind, KeyIdentity};
use crate::ledger_wit::ApprovalRequest;
use crate::prelude::*;
use crate::text::Q;

/// The `_meta` members read, in the order their errors are reported.
pub const META_SCOPE: &str = "oncely/scope";
/// The run a request names.
pub const META_RUN: &str = "oncely/run";
/// The step a request names.
pub const META_STEP: &str = "oncely/step";
/// A client-chosen key (SEP-3182), used as the step.
pub const IDEMPOTENCY_KEY: &str = "idempotencyKey";
/// The run of calls keyed by a client's `idempotencyKey` when nothing names one: the client's
/// key names the intent by itself, across sessions.
pub const CLIENT_KEY_RUN: &str = "idempotency-key";
/// The scope when nothing names one.
pub const FALLBACK_SCOPE: &str = "default";

/// A value the host gave: an empty string names nothing.
fn named(v: Option<String>) -> Option<String> {
    v.filter(|s| !s.is_empty())
}

fn meta_error(at: &str, message: String) -> IdentityError {
    IdentityError { kind: IdentityErrorKind::InvalidMeta, at: Some(at.to_string()), message }
}

/// The members of `_meta` the identity reads: `[scope, run, step, idempotencyKey]`.
fn read_meta(meta_json: &str) -> Result<[Option<String>; 4], IdentityError> {
    let mut out = [None, None, None, None];
    if meta_json.trim_ascii().is_empty() {
        return Ok(out);
    }
    let members = match json::parse(meta_json) {
        Ok(Value::Object(members)) => members,
        Ok(_) => return Err(meta_error("", "the request's _meta is not a JSON object".into())),
        Err(e) => return Err(meta_error("", msg!["the request's _meta is not acceptable JSON: ", e.message])),
    };
    for (slot, name) in out.iter_mut().zip([META_SCOPE, META_RUN, META_STEP, IDEMPOTENCY_KEY]) {
        *slot = match members.iter().find(|(n, _)| n == name).map(|(_, v)| v) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.is_empty() => None,
            Some(Value::String(s)) => Some(s.to_string()),
            Some(n @ Value::Number(_)) => Some(json::to_string(n)),
            Some(_) => {
                return Err(meta_error(name, msg!["_meta[", Q(name), "] must be a string or a number"]));
            }
        };
    }
    Ok(out)
}

/// The scope, run and step of a call, and the identity to key it with (`wit/agent.wit`,
/// `identify`).
pub fn identify(call: CallContext) -> Result<Identity, IdentityError> {
    let [meta_scope, meta_run, meta_step, meta_key] = read_meta(&call.meta_json)?;
    let client_key = meta_key.or_else(|| named(call.params_key));

    let (scope, scope_from) = if let Some(s) = named(call.scope) {
        (s, Origin::Given)
    } else if let Some(s) = meta_scope {
        (s, Origin::Meta)
    } else if let Some(s) = named(call.default_scope) {
        (s, Origin::HostDefault)
    } else {
        (FALLBACK_SCOPE.to_string(), Origin::Fallback)
    };

    let (step, step_from) = if let Some(s) = named(call.step) {
        (Some(s), Some(Origin::Given))
    } else if let Some(s) = meta_step {
        (Some(s), Some(Origin::Meta))
    } else if let Some(k) = client_key {
        (Some(k), Some(Origin::IdempotencyKey))
    } else {
        (None, None)
    };

    let run = if let Some(r) = named(call.run) {
        Some((r, Origin::Given))
    } else if let Some(r) = named(call.conversation) {
        Some((r, Origin::Conversation))
    } else if let Some(r) = meta_run {
        Some((r, Origin::Meta))
    } else if let Some(r) = named(call.default_run) {
        Some((r, Origin::HostDefault))
    } else if step_from == Some(Origin::IdempotencyKey) {
        Some((CLIENT_KEY_RUN.to_string(), Origin::IdempotencyKey))
    } else {
        named(call.session).map(|r| (r, Origin::Session))
    };

    // A tool that is not keyed (its class passes through) needs no run: with none, its key (the
    // effect machine still names one, for the provider) is its scope's.
    let passes_through = call.effect_class.is_some_and(|c| !crate::policy::uses_ledger(c));
    let key_identity = match call.key_identity {
        _ if run.is_none() && passes_through => KeyIdentity::Scope,
        KeyIdentity::Step if step.is_none() => KeyIdentity::Run,
        declared => declared,
    };
    if run.is_none() && key_identity != KeyIdentity::Scope {
        return Err(IdentityError {
            kind: IdentityErrorKind::NoRun,
            at: None,
            message: msg![
                "the oncely tool ",
                Q(&call.tool),
                " needs a run: give the conversation, thread, workflow or job id that stays the same when the call is asked again ",
                "(an adapter's run option, oncely.context(run=...), _meta[\"oncely/run\"] or the gateway's --run); never the model's tool-call id"
            ],
        });
    }
    let (run, run_from) = match run {
        Some((r, from)) => (Some(r), Some(from)),
        None => (None, None),
    };
    Ok(Identity { scope, run, step, key_identity, scope_from, run_from, step_from })
}

/// The approval form's JSON Schema: `approve` (required), `reason` (optional).
pub const APPROVAL_SCHEMA: &str = concat!(
    r#"{"type":"object","properties":{"#,
    r#""approve":{"type":"boolean","title":"Approve","description":"Run this call once, with these arguments"},"#,
    r#""reason":{"type":"string","title":"Reason","description":"Why (recorded; a denial's reason is what the agent reads)"}},"#,
    r#""required":["approve"]}"#
);

/// Who answers for a client that gives no name.
pub const UNNAMED_CLIENT: &str = "agent";

/// The form that asks a person about `req` through the agent's client (`wit/agent.wit`,
/// `approval-form`).
pub fn approval_form(req: &ApprovalRequest, client: Option<String>) -> ApprovalForm {
    let client = named(client).unwrap_or_else(|| UNNAMED_CLIENT.to_string());
    ApprovalForm {
        message: msg![
            "Approve this call of the tool ",
            Q(&req.tool),
            "? It runs once, with exactly these arguments:\n",
            req.args_canonical,
            "\n(oncely: this call's policy asks a person first; key ",
            req.key,
            ")"
        ],
        schema_json: APPROVAL_SCHEMA.to_string(),
        recorded_as: msg!["mcp:", client],
        decline_note: msg!["declined by ", client],
    }
}

fn reply(code: ReplyCode, text: String, key: Option<&str>, repeatable: bool) -> Reply {
    Reply { code, text, key: key.map(str::to_string), pointer: None, retry_after_ms: None, repeatable }
}

fn unkeyable(why: &str) -> Reply {
    reply(
        ReplyCode::InvalidArguments,
        msg!["oncely: the arguments cannot be keyed: ", why, ". Nothing was run; send the call again with arguments that can be."],
        None,
        false,
    )
}

/// What the model reads for `error` (`wit/agent.wit`, `answer`).
pub fn answer(error: &Failure) -> Option<Reply> {
    let e = match error {
        Failure::Effect(e) => e,
        Failure::Key(k) => {
            return match k.kind {
                KeyErrorKind::InvalidArgs | KeyErrorKind::MissingMember | KeyErrorKind::PointerIntoArray => Some(unkeyable(&k.message)),
                KeyErrorKind::InvalidPointer | KeyErrorKind::EmptyField => None,
            }
        }
        Failure::Canon(c) => return Some(unkeyable(&c.message)),
    };
    Some(match e {
        EffectError::Conflict(c) => Reply {
            pointer: Some(c.pointer.clone()),
            ..reply(
                ReplyCode::Conflict,
                msg![
                    "oncely: refused: an effect with this key already ran with different arguments (they first differ ",
                    if c.pointer.is_empty() { msg!["at their root"] } else { msg!["at ", Q(&c.pointer)] },
                    "). Nothing was run now; the earlier effect stands, and this call will be refused again. ",
                    "A second, different effect needs what tells it apart: other arguments, or another step."
                ],
                Some(&c.key),
                false,
            )
        },
        EffectError::InProgress(b) => Reply {
            retry_after_ms: Some(b.retry_after_ms),
            ..reply(
                ReplyCode::InProgress,
                "oncely: this exact call is already running; it was not started a second time. An identical call returns its result once it has finished.".into(),
                Some(&b.key),
                true,
            )
        },
        EffectError::InDoubt(k) => Reply {
            retry_after_ms: k.retry_after_ms,
            ..reply(
                ReplyCode::InDoubt,
                msg![
                    "oncely: the outcome of this call is unknown: it may have happened",
                    if k.reason.is_empty() { String::new() } else { msg![" (", k.reason, ")"] },
                    ". It will not be run again; it is being reconciled",
                    match k.retry_after_ms {
                        Some(ms) => msg![" (next in ", ms.div_ceil(1000), " s)"],
                        None => String::new(),
                    },
                    ", and escalated to a human if that cannot tell. ",
                    "Do not repeat it with other arguments; an identical call returns the outcome once it is known."
                ],
                Some(&k.key),
                true,
            )
        },
        EffectError::Escalated(k) => reply(
            ReplyCode::Escalated,
            msg![
                "oncely: the outcome of this call is unknown and a human has been asked to settle it (",
                k.reason,
                "). It will not be run again until then; an identical call returns what they decide."
            ],
            Some(&k.key),
            true,
        ),
        EffectError::ResultNotRecorded(k) => reply(
            ReplyCode::ResultNotRecorded,
            msg!["oncely: the call happened, but its result could not be recorded (", k.reason, "); it will not be run again."],
            Some(&k.key),
            false,
        ),
        EffectError::ToolFailed(reason) => {
            reply(ReplyCode::ToolFailed, msg!["oncely: the tool failed, and did not happen: ", reason], None, true)
        }
        EffectError::Contention(n) => reply(
            ReplyCode::Contention,
            msg!["oncely: ", *n, " workers raced for this call; it was not run. An identical call may be sent again."],
            None,
            true,
        ),
        EffectError::AwaitingApproval(r) => reply(
            ReplyCode::AwaitingApproval,
            "oncely: this call needs a person's approval before it runs, and has not run. They have been asked, once; \
             an identical call runs it once they approve (or is told that they denied it). Do not send it with other arguments to get around this."
                .into(),
            Some(&r.key),
            true,
        ),
        EffectError::Denied(d) => reply(
            ReplyCode::Denied,
            msg![
                "oncely: a person denied this call",
                if d.reason.is_empty() { String::new() } else { msg![" (", d.reason, ")"] },
                ". It did not happen and will not; do not send it again."
            ],
            Some(&d.key),
            false,
        ),
        EffectError::Storage(_) | EffectError::Ledger(_) => return None,
    })
}

impl Guest for crate::Core {
    fn identify(call: CallContext) -> Result<Identity, IdentityError> {
        identify(call)
    }

    fn approval_prompt(request: ApprovalRequest, client: Option<String>) -> ApprovalForm {
        approval_form(&request, client)
    }

    fn answer(error: Failure) -> Option<Reply> {
        answer(&error)
    }
}
