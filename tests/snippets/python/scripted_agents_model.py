# scripts/snippets: runs before a README block that runs an OpenAI Agents SDK agent: `model`, a
# scripted model (the SDK's own agents.testing.ScriptedModel: no network, no tracing export) that
# calls refund once, then answers.
from agents import set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call

set_tracing_disabled(True)
model = ScriptedModel(
    [
        [function_call("refund", {"charge_id": "ch_1", "amount": 500}, call_id="call_1")],
        [assistant_message("Refunded.")],
    ]
)
