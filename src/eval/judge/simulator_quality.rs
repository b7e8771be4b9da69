//! ADK's `per_turn_user_simulator_quality_v1` (`simulation/per_turn_user_simulator_quality_v1.py`):
//! how well a simulated user kept to its scenario. The first turn passes when the user's
//! message is the starting prompt; each later one is judged (majority over samples) on
//! whether the message keeps to the plan, the history and the persona; then the judge is asked
//! whether the conversation should have ended, and a failed answer replaces the last turn's
//! verdict. The score is the share of turns that passed.

use super::input::content_text;
use super::parse::{python_space, python_strip};
use super::{with_evidence, Asker, JudgeEvidence};
use crate::eval::judge::evidence::{Sample, ValidityLabel, ValidityParser, Verdict, Votes};
use crate::eval::services::InvocationScore;
use crate::eval::simulator::prompt::{render, Values};
use crate::eval::simulator::{resolve_persona, Persona};
use crate::evalset::{ConversationScenario, Invocation};

/// ADK's `_LATEST_TURN_USER_SIMULATOR_EVALUATOR_PROMPT_TEMPLATE`.
const PROMPT: &str = include_str!("per_turn_user_simulator_quality_v1.txt");
/// ADK's `_LATEST_TURN_USER_SIMULATOR_WITH_PERSONA_EVALUATOR_PROMPT_TEMPLATE`.
const PERSONA_PROMPT: &str = include_str!("per_turn_user_simulator_quality_v1_persona.txt");
const LOOP_START: &str = "{% for b in persona.behaviors %}";
const LOOP_END: &str = "{% endfor %}";

/// The metric over a conversation: each turn's score, and the share of turns that passed.
pub(super) struct Judged {
    pub per_invocation: Vec<InvocationScore>,
    pub overall: Option<f64>,
}

/// ADK's `evaluate_invocations`. An error (no scenario, an unknown persona, a failed judge)
/// leaves the whole metric NOT_EVALUATED, as ADK's evaluator raises there.
pub(super) async fn evaluate(
    asker: &Asker<'_>,
    conversation: &[Invocation],
    scenario: Option<&ConversationScenario>,
    stop_signal: &str,
    samples: usize,
    threshold: f64,
) -> Result<Judged, String> {
    let scenario = scenario.ok_or(
        "per_turn_user_simulator_quality_v1 judges a simulated user, and this case has no conversation_scenario",
    )?;
    let first = conversation
        .first()
        .ok_or("the conversation has no turns to judge")?;
    let persona = scenario.user_persona.as_ref().map(resolve_persona).transpose()?;
    let judge = TurnJudge {
        asker,
        scenario,
        persona: persona.as_ref(),
        stop_signal,
        samples,
    };
    let mut per_invocation = vec![first_turn(first, scenario)];
    for index in 1..conversation.len() {
        let message = content_text(Some(&conversation[index].user_content)).unwrap_or_default();
        per_invocation.push(judge.turn(&message, &conversation[..index]).await?);
    }
    let mut ending = judge.turn(stop_signal, conversation).await?;
    if ending.score.is_some_and(|score| score < threshold) {
        ending.reason = Some(format!(
            "the judge found the conversation should not have ended here: the verdict on the stop signal {stop_signal} replaces this turn's"
        ));
        *per_invocation.last_mut().expect("the first turn is there") = ending;
    }
    let passed: f64 = per_invocation
        .iter()
        .filter_map(|turn| turn.score)
        .filter(|score| *score >= threshold)
        .sum();
    let overall = Some(passed / per_invocation.len() as f64);
    Ok(Judged {
        per_invocation,
        overall,
    })
}

/// ADK's `_evaluate_first_turn`: 1 when the message is the starting prompt (both stripped).
fn first_turn(first: &Invocation, scenario: &ConversationScenario) -> InvocationScore {
    match content_text(Some(&first.user_content)) {
        None => InvocationScore::not_evaluated("the first turn has no user message"),
        Some(text) if python_strip(&text) == python_strip(&scenario.starting_prompt) => {
            let mut score = InvocationScore::scored(1.0);
            score.reason = Some("the first message is the scenario's starting prompt".into());
            score
        }
        Some(_) => {
            let mut score = InvocationScore::scored(0.0);
            score.reason = Some("the first message is not the scenario's starting prompt".into());
            score
        }
    }
}

struct TurnJudge<'a> {
    asker: &'a Asker<'a>,
    scenario: &'a ConversationScenario,
    persona: Option<&'a Persona>,
    stop_signal: &'a str,
    samples: usize,
}

impl TurnJudge<'_> {
    /// ADK's `_evaluate_intermediate_turn`: `samples` verdicts on `message` after `history`,
    /// the majority's (a tie goes to invalid); `None` when no reply had a verdict.
    async fn turn(&self, message: &str, history: &[Invocation]) -> Result<InvocationScore, String> {
        let prompt = self.prompt(message, &conversation_history(history))?;
        if self.samples == 0 {
            return Ok(InvocationScore::not_evaluated(
                "num_samples is 0, so the judge was not asked",
            ));
        }
        let mut replies = Vec::with_capacity(self.samples);
        for _ in 0..self.samples {
            let reply = self
                .asker
                .ask_all(vec![prompt.as_str()])
                .await
                .pop()
                .unwrap_or_else(|| Err("the judge was not asked".into()))
                .map_err(|error| format!("the judge failed: {error}"))?;
            replies.push(reply);
        }
        let mut votes = Votes::default();
        let samples: Vec<Sample> = replies
            .into_iter()
            .map(|reply| match is_valid(&reply) {
                Some(valid) => {
                    if valid {
                        votes.yes += 1;
                    } else {
                        votes.no += 1;
                    }
                    Sample::Verdict {
                        reply,
                        verdict: Verdict::Validity {
                            label: if valid {
                                ValidityLabel::Valid
                            } else {
                                ValidityLabel::Invalid
                            },
                            parser: ValidityParser::Adk,
                        },
                    }
                }
                None => Sample::Unread {
                    reply,
                    problem: "no \"is_valid\": true/false (or valid/invalid) in the reply".into(),
                },
            })
            .collect();
        votes.unread = samples.len() - votes.yes - votes.no;
        let score = if votes.yes > votes.no {
            InvocationScore::scored(1.0)
        } else if votes.no > 0 {
            InvocationScore::scored(0.0)
        } else {
            InvocationScore::not_evaluated("no reply of the judge had an \"is_valid\" verdict")
        };
        Ok(with_evidence(
            score,
            JudgeEvidence {
                samples: Some(samples),
                votes: Some(votes),
                ..JudgeEvidence::default()
            },
        ))
    }

    /// ADK's `get_per_turn_user_simulator_quality_prompt`.
    fn prompt(&self, message: &str, history: &str) -> Result<String, String> {
        let values = Values {
            stop_signal: self.stop_signal,
            conversation_plan: &self.scenario.conversation_plan,
            conversation_history: history,
            persona: self.persona,
        };
        let fill = |template: &str, behavior: Option<&[String; 3]>| {
            fill_names(template, |name| match name {
                "stop_signal" => Some(self.stop_signal.to_string()),
                "conversation_plan" => Some(self.scenario.conversation_plan.clone()),
                "conversation_history" => Some(history.to_string()),
                "generated_user_response" => Some(message.to_string()),
                "persona.description" => self.persona.map(|p| p.description.clone()),
                "b.name | render_string_filter" => behavior.map(|b| b[0].clone()),
                "b.description | render_string_filter" => behavior.map(|b| b[1].clone()),
                "b.get_violation_rubrics_str() | render_string_filter" => behavior.map(|b| b[2].clone()),
                _ => None,
            })
        };
        let Some(persona) = self.persona else {
            return Ok(fill(PROMPT, None));
        };
        let (head, rest) = PERSONA_PROMPT
            .split_once(LOOP_START)
            .expect("the persona prompt loops");
        let (body, tail) = rest.split_once(LOOP_END).expect("the persona prompt's loop ends");
        let mut out = fill(head, None);
        for behavior in &persona.behaviors {
            // ADK's `render_string_filter`: the behavior's texts are templates themselves.
            let rendered = [
                render(&behavior.name, &values)?,
                render(&behavior.description, &values)?,
                render(&behavior.violation_rubrics_text(), &values)?,
            ];
            out.push_str(&fill(body, Some(&rendered)));
        }
        out.push_str(&fill(tail, None));
        Ok(out)
    }
}

/// Fills each `{{ name }}` the lookup knows, in one pass; others are left as written.
fn fill_names(template: &str, lookup: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        let Some(length) = rest[start..].find("}}") else {
            break;
        };
        let name = rest[start + 2..start + length].trim();
        out.push_str(&rest[..start]);
        match lookup(name) {
            Some(value) => out.push_str(&value),
            None => out.push_str(&rest[start..start + length + 2]),
        }
        rest = &rest[start + length + 2..];
    }
    out.push_str(rest);
    out
}

/// ADK's `_format_conversation_history`: `user: …` and `{role}: …` of the final responses,
/// `None` where ADK's f-string meets one.
fn conversation_history(conversation: &[Invocation]) -> String {
    let mut lines = Vec::new();
    for invocation in conversation {
        if invocation
            .user_content
            .parts
            .as_ref()
            .is_some_and(|parts| !parts.is_empty())
        {
            lines.push(format!(
                "user: {}",
                content_text(Some(&invocation.user_content)).unwrap_or_default()
            ));
        }
        if let Some(response) = &invocation.final_response {
            lines.push(format!(
                "{}: {}",
                response.role.as_deref().unwrap_or("None"),
                content_text(Some(response)).unwrap_or_else(|| "None".into())
            ));
        }
    }
    lines.join("\n\n")
}

/// ADK's `_parse_llm_response`: the label after `"is_valid":` as its regex
/// `"is_valid":\s*\[*[\n\s]*"*([^"\]]*)"*[\n\s]*\]*\s*[,\n\}]` finds it; `Some(true)` for
/// valid/true, `Some(false)` for invalid/false/almost/partially valid, `None` otherwise.
pub(super) fn is_valid(reply: &str) -> Option<bool> {
    let label = is_valid_label(reply)?;
    let label = label.trim_matches('}').replace(',', "");
    match python_strip(&label).to_lowercase().as_str() {
        "valid" | "true" => Some(true),
        "invalid" | "almost" | "false" | "partially_valid" | "partially valid" | "partially" => Some(false),
        _ => None,
    }
}

/// The regex's group at its first match: the leftmost `"is_valid":` after which the rest of
/// the pattern matches, with the greedy quantifiers' first choice that does (a backtracking
/// search, remembering the positions from which the rest cannot match).
fn is_valid_label(reply: &str) -> Option<String> {
    const KEY: &str = "\"is_valid\":";
    let chars: Vec<char> = reply.chars().collect();
    let key: Vec<char> = KEY.chars().collect();
    (0..chars.len()).find_map(|start| {
        if !chars[start..].starts_with(&key) {
            return None;
        }
        let mut failed = std::collections::HashSet::new();
        let mut group = None;
        matches(&chars, start + key.len(), 0, &mut failed, &mut group).then(|| {
            let (from, to) = group.expect("the group is set on a match");
            chars[from..to].iter().collect()
        })
    })
}

/// The pattern after the key: greedy runs of these classes, then one of `,` `\n` `}`.
const RUNS: [fn(char) -> bool; 9] = [
    python_space,             // \s*
    |c| c == '[',             // \[*
    python_space,             // [\n\s]*
    |c| c == '"',             // "*
    |c| c != '"' && c != ']', // ([^"\]]*)
    |c| c == '"',             // "*
    python_space,             // [\n\s]*
    |c| c == ']',             // \]*
    python_space,             // \s*
];
const GROUP: usize = 4;

fn matches(
    chars: &[char],
    at: usize,
    node: usize,
    failed: &mut std::collections::HashSet<(usize, usize)>,
    group: &mut Option<(usize, usize)>,
) -> bool {
    if node == RUNS.len() {
        return chars.get(at).is_some_and(|c| matches!(c, ',' | '\n' | '}'));
    }
    if failed.contains(&(node, at)) {
        return false;
    }
    let run = chars[at..].iter().take_while(|c| RUNS[node](**c)).count();
    for length in (0..=run).rev() {
        if matches(chars, at + length, node + 1, failed, group) {
            if node == GROUP {
                *group = Some((at, at + length));
            }
            return true;
        }
    }
    failed.insert((node, at));
    false
}
