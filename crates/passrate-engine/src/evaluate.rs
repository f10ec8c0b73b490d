//! `passrate evaluate`: a file of samples judged on a fixed benchmark of the pool, not on the
//! week's sample. Upstream task ids (`HumanEval/0`, `Mbpp/2`, MultiPL-E's
//! `HumanEval_0_has_close_elements`) resolve to pool tasks; every sample goes through the
//! extraction and sandbox of the weekly cycle ([`crate::judge`]); the result is per-sample
//! verdicts and pass@k with a bootstrap interval over tasks.
//!
//! Units that end in an infrastructure fault after their retries are reported and left out
//! of pass@k, never counted as failures.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use passrate_pool::Pool;
use passrate_runner::Runner;
use passrate_schema::{Category, Language, RobustnessCheck, Task, TestCase};
use passrate_score::{Bootstrap, Interval, derive_seed, pass_at_k_interval};

use crate::error::EngineError;
use crate::judge::{Judged, RetryPolicy, judge};
use crate::quality;
use crate::samples::{Sample, SampleBody};

/// Categories whose tasks are "answer the prompt with a function": what the public
/// code-generation benchmarks measure.
const BENCHMARK_CATEGORIES: [Category; 2] = [
    Category::FunctionCompletion,
    Category::AlgorithmImplementation,
];

/// A benchmark the pool can judge: its tasks of one dataset in the prompt-answering
/// categories.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Benchmark {
    pub name: String,
    pub tasks: usize,
    /// Tasks per language.
    pub languages: BTreeMap<Language, usize>,
}

/// The benchmarks of `pool`, by name.
pub fn benchmarks(pool: &Pool) -> Vec<Benchmark> {
    let mut by_name: BTreeMap<String, Benchmark> = BTreeMap::new();
    for task in benchmark_tasks(pool) {
        let b = by_name
            .entry(task.source.dataset.clone())
            .or_insert_with(|| Benchmark {
                name: task.source.dataset.clone(),
                tasks: 0,
                languages: BTreeMap::new(),
            });
        b.tasks += 1;
        for language in task.variants.keys() {
            *b.languages.entry(*language).or_default() += 1;
        }
    }
    by_name.into_values().collect()
}

fn benchmark_tasks(pool: &Pool) -> impl Iterator<Item = &Task> {
    pool.tasks()
        .iter()
        .filter(|t| BENCHMARK_CATEGORIES.contains(&t.category))
}

/// Why a samples file cannot be judged on a benchmark.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    #[error("no benchmark `{name}` in the pool (passrate evaluate --list shows them: {known})")]
    UnknownBenchmark { name: String, known: String },
    #[error(
        "line {line}: task `{task}` resolves to several benchmarks ({candidates}); choose one with --benchmark"
    )]
    Ambiguous {
        line: usize,
        task: String,
        candidates: String,
    },
    #[error("line {line}: benchmark `{benchmark}` has no task `{task}`")]
    UnknownTask {
        line: usize,
        task: String,
        benchmark: String,
    },
    #[error("line {line}: task {task} has no {language} variant (it offers {offered})")]
    NoVariant {
        line: usize,
        task: String,
        language: Language,
        offered: String,
    },
}

/// A sample with its pool task and the answer the model is judged on.
#[derive(Clone, Debug)]
pub struct Resolved<'p> {
    pub sample: Sample,
    pub task: &'p Task,
    pub language: Language,
    /// Position of the sample among its task's samples, from 0.
    pub sample_index: u32,
    /// What is extracted and judged: the prompt followed by the completion, or the solution.
    pub answer: String,
}

/// `HumanEval/0`, `humaneval/0`, `HumanEval_0_has_close_elements`, `Mbpp/2` → the family key
/// (`humaneval/0`, `mbpp/2`) the pool's tasks carry.
fn family_key(id: &str) -> String {
    let lower = id.trim().to_ascii_lowercase();
    if let Some((dataset, rest)) = lower.split_once('_')
        && let Some(number) = rest.split('_').next()
        && !number.is_empty()
        && number.bytes().all(|b| b.is_ascii_digit())
        && !dataset.contains('/')
    {
        return format!("{dataset}/{number}");
    }
    lower
}

/// Resolves every sample to a task of one benchmark (`benchmark`, or the one the ids name)
/// in `language` (default: Python).
pub fn resolve<'p>(
    pool: &'p Pool,
    samples: Vec<Sample>,
    benchmark: Option<&str>,
    language: Option<Language>,
) -> Result<(String, Vec<Resolved<'p>>), ResolveError> {
    let language = language.unwrap_or(Language::Python);
    let known = benchmarks(pool);
    if let Some(name) = benchmark
        && !known.iter().any(|b| b.name == name)
    {
        return Err(ResolveError::UnknownBenchmark {
            name: name.to_string(),
            known: known
                .iter()
                .map(|b| b.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    // Every task under its pool id and its family key, per benchmark.
    let mut index: HashMap<String, Vec<&Task>> = HashMap::new();
    for task in benchmark_tasks(pool) {
        index
            .entry(task.id.to_ascii_lowercase())
            .or_default()
            .push(task);
        let family = task.family();
        if family != task.id {
            index.entry(family).or_default().push(task);
        }
    }
    let ordered: Vec<&Task> = match benchmark {
        Some(name) => benchmark_tasks(pool)
            .filter(|t| t.source.dataset == name)
            .collect(),
        None => Vec::new(),
    };
    let mut chosen = benchmark.map(str::to_string);
    let mut counts: HashMap<String, u32> = HashMap::new();
    let mut resolved = Vec::with_capacity(samples.len());
    for sample in samples {
        let candidates: Vec<&Task> = if let Some(position) = sample.task.strip_prefix('#') {
            // bigcode: the task's position in the benchmark, in pool order.
            if chosen.is_none() {
                return Err(ResolveError::Ambiguous {
                    line: sample.line,
                    task: sample.task.clone(),
                    candidates: known
                        .iter()
                        .map(|b| b.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
            position
                .parse::<usize>()
                .ok()
                .and_then(|p| ordered.get(p).copied())
                .into_iter()
                .collect()
        } else {
            let key = sample.task.trim().to_ascii_lowercase();
            let mut found = index.get(&key).cloned().unwrap_or_default();
            if found.is_empty() {
                found = index
                    .get(&family_key(&sample.task))
                    .cloned()
                    .unwrap_or_default();
            }
            found
        };
        let in_benchmark: Vec<&Task> = match &chosen {
            Some(name) => candidates
                .into_iter()
                .filter(|t| &t.source.dataset == name)
                .collect(),
            None => candidates,
        };
        let task = match in_benchmark.as_slice() {
            [one] => *one,
            [] => {
                return Err(ResolveError::UnknownTask {
                    line: sample.line,
                    task: sample.task.clone(),
                    benchmark: chosen.clone().unwrap_or_else(|| "any".into()),
                });
            }
            many => {
                let mut names: Vec<&str> = many.iter().map(|t| t.source.dataset.as_str()).collect();
                names.sort_unstable();
                names.dedup();
                return Err(ResolveError::Ambiguous {
                    line: sample.line,
                    task: sample.task.clone(),
                    candidates: names.join(", "),
                });
            }
        };
        if chosen.is_none() {
            chosen = Some(task.source.dataset.clone());
        }
        let variant = task
            .variants
            .get(&language)
            .ok_or_else(|| ResolveError::NoVariant {
                line: sample.line,
                task: task.id.clone(),
                language,
                offered: task
                    .variants
                    .keys()
                    .map(|l| l.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        let answer = match &sample.body {
            SampleBody::Completion(c) => format!("{}{}", variant.prompt, c),
            SampleBody::Solution(s) => s.clone(),
        };
        let n = counts.entry(task.id.clone()).or_default();
        let sample_index = *n;
        *n += 1;
        resolved.push(Resolved {
            sample,
            task,
            language,
            sample_index,
            answer,
        });
    }
    Ok((chosen.unwrap_or_default(), resolved))
}

/// One sample's verdict.
#[derive(Clone, Debug)]
pub struct SampleVerdict {
    pub line: usize,
    /// The id as the file wrote it.
    pub upstream_task: String,
    pub task: String,
    pub sample_index: u32,
    pub answer: String,
    pub judged: Judged,
    /// A passed sample on its task's extra tests (`None`: it did not pass or the task has
    /// none; reason `sandbox_error` when their execution faulted).
    pub robustness: Option<RobustnessCheck>,
}

impl SampleVerdict {
    /// EvalPlus's "plus" verdict: passed, and passed every extra test the task keeps.
    pub fn plus_passed(&self) -> bool {
        self.judged.verdict.passed() && self.robustness.as_ref().is_none_or(|r| r.robust())
    }

    pub fn infrastructure_fault(&self) -> bool {
        self.judged.verdict.reason.is_infrastructure()
            || self
                .robustness
                .as_ref()
                .is_some_and(|r| r.reason.is_infrastructure())
    }
}

/// pass@k over the tasks that have at least k scored samples.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PassAtK {
    pub k: u32,
    /// `None` when some task has fewer than k scored samples.
    pub estimate: Option<Interval>,
}

/// Everything `passrate evaluate` reports.
#[derive(Clone, Debug)]
pub struct Evaluation {
    pub benchmark: String,
    pub language: Language,
    pub samples: Vec<SampleVerdict>,
    /// Per task: (scored samples, passes).
    pub tasks: BTreeMap<String, (u32, u32)>,
    pub pass_at_k: Vec<PassAtK>,
    /// Share of samples that were format-compliant.
    pub compliance: f64,
    pub infrastructure_faults: usize,
}

/// Judges every resolved sample on `runner` with as many threads as it has slots, telling
/// `progress(done, total)` after each; a passed sample is also run on its task's extra tests
/// (`extra`, by task id), as EvalPlus runs its plus inputs; then aggregates.
#[allow(clippy::too_many_arguments)]
pub fn evaluate(
    runner: &Runner,
    benchmark: &str,
    resolved: &[Resolved<'_>],
    extra: &HashMap<String, Vec<TestCase>>,
    ks: &[u32],
    bootstrap: &Bootstrap,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Evaluation, EngineError> {
    let total = resolved.len();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    type Outcome = Result<(Judged, Option<RobustnessCheck>), EngineError>;
    let results: Mutex<Vec<Option<Outcome>>> = Mutex::new((0..total).map(|_| None).collect());
    let workers = runner.sandbox().slots().max(1).min(total.max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(r) = resolved.get(i) else { break };
                    let judged = judge(
                        runner,
                        r.task,
                        r.language,
                        Some(&r.answer),
                        None,
                        RetryPolicy::default(),
                        &|_, _| {},
                    )
                    .and_then(|judged| {
                        let robustness = match (&judged.extracted_code, extra.get(&r.task.id)) {
                            (Some(code), Some(tests)) if judged.verdict.passed() => {
                                quality::robustness_of(runner, r.task, r.language, code, tests)?
                            }
                            _ => None,
                        };
                        Ok((judged, robustness))
                    });
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(judged);
                    progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
                }
            });
        }
    });
    let mut samples = Vec::with_capacity(total);
    for (r, judged) in resolved
        .iter()
        .zip(results.into_inner().unwrap_or_else(|e| e.into_inner()))
    {
        let (judged, robustness) =
            judged.ok_or_else(|| EngineError::Worker("a sample was not judged".into()))??;
        samples.push(SampleVerdict {
            line: r.sample.line,
            upstream_task: r.sample.task.clone(),
            task: r.task.id.clone(),
            sample_index: r.sample_index,
            answer: r.answer.clone(),
            judged,
            robustness,
        });
    }
    let mut tasks: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    let mut infrastructure_faults = 0;
    let mut compliant = 0usize;
    for s in &samples {
        if s.infrastructure_fault() {
            infrastructure_faults += 1;
            continue;
        }
        if !s.judged.verdict.reason.is_noncompliant() {
            compliant += 1;
        }
        let entry = tasks.entry(s.task.clone()).or_default();
        entry.0 += 1;
        entry.1 += u32::from(s.judged.verdict.passed());
    }
    let counts: Vec<(u32, u32)> = tasks.values().copied().collect();
    let pass_at_k = ks
        .iter()
        .map(|&k| PassAtK {
            k,
            estimate: pass_at_k_interval(
                &counts,
                k,
                bootstrap,
                derive_seed("evaluate", &[benchmark, &k.to_string()]),
            ),
        })
        .collect();
    let scored = samples.len() - infrastructure_faults;
    Ok(Evaluation {
        benchmark: benchmark.to_string(),
        language: resolved
            .first()
            .map(|r| r.language)
            .unwrap_or(Language::Python),
        compliance: if scored == 0 {
            0.0
        } else {
            compliant as f64 / scored as f64
        },
        samples,
        tasks,
        pass_at_k,
        infrastructure_faults,
    })
}

#[cfg(test)]
mod tests {
    use super::family_key;

    #[test]
    fn upstream_ids_resolve_to_family_keys() {
        assert_eq!(family_key("HumanEval/12"), "humaneval/12");
        assert_eq!(family_key("humaneval/12"), "humaneval/12");
        assert_eq!(family_key("HumanEval_12_longest"), "humaneval/12");
        assert_eq!(family_key("Mbpp/2"), "mbpp/2");
        assert_eq!(family_key("mbpp_2_similar_elements"), "mbpp/2");
    }
}
