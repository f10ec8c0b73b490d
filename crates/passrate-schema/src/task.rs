//! Tasks: what a model is asked, in which languages, and the tests that judge the answer.

use std::collections::BTreeMap;
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::value::Value;

/// A language candidates are written in.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    Python,
    Javascript,
    Java,
}

impl Language {
    pub const ALL: [Language; 3] = [Language::Python, Language::Javascript, Language::Java];

    pub fn as_str(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::Javascript => "javascript",
            Language::Java => "java",
        }
    }

    /// Accepts the canonical names and the usual short forms (`py`, `js`, `node`).
    pub fn parse(text: &str) -> Option<Language> {
        match text.to_ascii_lowercase().as_str() {
            "python" | "py" | "python3" => Some(Language::Python),
            "javascript" | "js" | "node" | "nodejs" => Some(Language::Javascript),
            "java" => Some(Language::Java),
            _ => None,
        }
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The seven task categories.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    FunctionCompletion,
    AlgorithmImplementation,
    BugFixing,
    CodeTranslation,
    DocumentationGeneration,
    UnitTestWriting,
    Refactoring,
}

impl Category {
    pub const ALL: [Category; 7] = [
        Category::FunctionCompletion,
        Category::AlgorithmImplementation,
        Category::BugFixing,
        Category::CodeTranslation,
        Category::DocumentationGeneration,
        Category::UnitTestWriting,
        Category::Refactoring,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Category::FunctionCompletion => "function_completion",
            Category::AlgorithmImplementation => "algorithm_implementation",
            Category::BugFixing => "bug_fixing",
            Category::CodeTranslation => "code_translation",
            Category::DocumentationGeneration => "documentation_generation",
            Category::UnitTestWriting => "unit_test_writing",
            Category::Refactoring => "refactoring",
        }
    }

    pub fn parse(text: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.as_str() == text)
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Difficulty tier, 1 (easy) to 3 (hard), derived at intake from [`IntakeFactors`] only.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(try_from = "u8", into = "u8")]
pub enum Tier {
    One,
    Two,
    Three,
}

impl Tier {
    pub const ALL: [Tier; 3] = [Tier::One, Tier::Two, Tier::Three];

    pub fn number(self) -> u8 {
        match self {
            Tier::One => 1,
            Tier::Two => 2,
            Tier::Three => 3,
        }
    }
}

impl TryFrom<u8> for Tier {
    type Error = String;
    fn try_from(n: u8) -> Result<Self, Self::Error> {
        match n {
            1 => Ok(Tier::One),
            2 => Ok(Tier::Two),
            3 => Ok(Tier::Three),
            _ => Err(format!("tier must be 1, 2 or 3, got {n}")),
        }
    }
}

impl From<Tier> for u8 {
    fn from(t: Tier) -> u8 {
        t.number()
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tier{}", self.number())
    }
}

/// The three difficulty factors recorded at intake. The tier is a function of these alone
/// (the rule lives in `passrate-pool`), never of any model's results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IntakeFactors {
    /// Independent logical conditions the solution must get right (branches, loop exits,
    /// boolean sub-conditions), counted on the reference solution.
    pub conditions: u32,
    /// Size class of the solution space: 1 = a direct formula or one pass, 2 = a
    /// combination of standard steps, 3 = a search or design among many plausible approaches.
    pub solution_space: u8,
    /// Edge cases the task states explicitly (empty input, bounds, ties, invalid input).
    pub edge_cases: u32,
}

/// Where a task came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// Dataset name, e.g. `humaneval`, `mbpp`, `humanevalpack`.
    pub dataset: String,
    /// The problem's id in the dataset, e.g. `HumanEval/12`.
    pub upstream_id: String,
    /// SPDX licence of the data, e.g. `MIT`, `CC-BY-4.0`.
    pub license: String,
}

impl Source {
    /// The family of a task from this source (see [`Task::family`]): `<problem set>/<number or
    /// name>`, with the datasets that re-publish a problem set mapped back to it
    /// (HumanEvalPack's `Python/12` and HumanEval's `HumanEval/12` are both `humaneval/12`;
    /// `mbpp/12` and `Mbpp/12` are `mbpp/12`). Any other source is its own family:
    /// `<dataset>/<upstream id>`.
    pub fn family(&self) -> String {
        let upstream = self.upstream_id.as_str();
        let tail = upstream.rsplit('/').next().unwrap_or(upstream);
        let numbered = !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit());
        match self.dataset.as_str() {
            "humaneval" | "humanevalpack" | "humanevalplus" | "humaneval-x" if numbered => {
                format!("humaneval/{tail}")
            }
            "mbpp" | "mbppplus" | "mbxp" if numbered => format!("mbpp/{tail}"),
            "classeval" => format!(
                "classeval/{}",
                upstream.strip_prefix("ClassEval_").unwrap_or(upstream)
            ),
            dataset => format!("{dataset}/{upstream}"),
        }
    }
}

/// One parameter of an entry point.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Param {
    pub name: String,
    /// The declared type, as written in the language (always present for Java).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ty: Option<String>,
}

/// The signature a compliant answer must define.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Signature {
    pub params: Vec<Param>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returns: Option<String>,
}

/// A task in one language.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    /// What the model is shown (before the category's prompt template is applied).
    pub prompt: String,
    /// Name of the function (or method) the tests call.
    pub entry_point: String,
    /// For Java, and for class-level tasks: the class that holds the entry point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_name: Option<String>,
    pub signature: Signature,
    /// A complete, self-contained reference answer (what a perfect model would return).
    pub reference_solution: String,
    /// Code the model must work on: the buggy function (bug fixing), the undocumented function
    /// (documentation), the tangled function (refactoring), the function to test (unit tests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given_code: Option<String>,
    /// Known-wrong implementations: bug-fixing's bug, unit-test writing's mutants.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faulty_variants: Vec<String>,
    /// Code that must precede the candidate (imports, helper classes the tests need).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preamble: Option<String>,
}

/// How a returned value is compared with the expected one. Strict by default.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Comparator {
    /// Absolute tolerance for floats (and, with `numeric`, ints against floats).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abs_tol: Option<f64>,
    /// Relative tolerance for floats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rel_tol: Option<f64>,
    /// Compare lists and tuples as multisets (order ignored).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unordered: bool,
    /// Ints and floats compare by numeric value (JavaScript has one number type).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub numeric: bool,
    /// Lists, tuples and sets compare as sets (order and duplicates ignored).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub as_set: bool,
}

impl Comparator {
    pub fn is_exact(&self) -> bool {
        *self == Comparator::default()
    }
}

/// Whether the model may see a test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    Public,
    Hidden,
}

/// What a call must produce.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Expected {
    /// The call returns this value.
    Returns(Value),
    /// The call raises/throws an exception of this type (simple name, e.g. `ValueError`).
    Raises(String),
    /// The call returns a value too large to store whole (HumanEval/83's half-million-digit
    /// integers): only the digest of the reference's result is kept. The host decodes the
    /// candidate's value and compares digests, which is strict equality (sets and maps in any
    /// order). Only for values without floats, under an exact comparator.
    ReturnsDigest(ValueDigest),
}

/// The digest of a value: blake3 of its canonical encoding
/// ([`Value::canonical_bytes`](crate::Value::canonical_bytes)), computed on the host.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ValueDigest {
    /// blake3 of the canonical encoding, 64 lowercase hex digits.
    pub blake3: String,
    /// Length of the canonical encoding in bytes.
    pub bytes: u64,
    /// The value's type ([`Value::type_name`](crate::Value::type_name)), for verdict details.
    #[serde(rename = "type")]
    pub type_name: String,
}

/// One method call of a `sequence` test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub method: String,
    pub args: Vec<Value>,
    pub expected: Expected,
}

/// The shape of a test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "form", rename_all = "snake_case", deny_unknown_fields)]
pub enum TestForm {
    /// Call the entry point with `args`; compare the result.
    Call {
        args: Vec<Value>,
        expected: Expected,
    },
    /// Construct the task's class with `constructor_args`, then call `steps` in order.
    Sequence {
        constructor_args: Vec<Value>,
        steps: Vec<Step>,
    },
}

/// One test of a task.
// No `deny_unknown_fields` here (serde cannot combine it with `flatten`): keys it does not
// know reach `TestForm`, which rejects them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TestCase {
    pub visibility: Visibility,
    #[serde(flatten)]
    pub form: TestForm,
    /// Overrides the task's comparator for this test.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparator: Option<Comparator>,
    /// Languages this test applies to (empty: all of the task's languages).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub languages: Vec<Language>,
}

impl TestCase {
    /// Whether the test is posed in `language` (an empty `languages` means every one).
    pub fn applies_to(&self, language: Language) -> bool {
        self.languages.is_empty() || self.languages.contains(&language)
    }
}

/// Structural targets a refactoring must meet, measured on the syntax tree.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StructuralTargets {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_nesting_depth: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cyclomatic_complexity: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_function_lines: Option<u32>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_duplicated_blocks: bool,
    /// Names of helper functions the refactoring must introduce.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required_helpers: Vec<String>,
}

/// Category-specific data beyond what [`Variant`] holds.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CategoryData {
    /// Code translation: the language the model is shown the solution in. The model answers
    /// in the task's other language(s); the source text is that variant's `given_code`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub translate_from: Option<Language>,
    /// Refactoring targets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refactor: Option<StructuralTargets>,
    /// Bug fixing: the failure symptom shown to the model, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symptom: Option<String>,
}

/// Per-task overrides of the default execution limits.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LimitOverrides {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mib: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heap_mib: Option<u64>,
}

/// Intake measurements, filled in by `passrate pool validate`.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Calibration {
    /// CPU time of the reference solution per test, in microseconds, per language. The base
    /// of per-test CPU budgets.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub reference_test_cpu_us: BTreeMap<Language, Vec<u64>>,
    /// How the scored tests fare against mechanical mutants of the reference, measured by
    /// `passrate pool import` in one language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutation: Option<MutationScore>,
}

/// A suite's strength: of the reference's mutants that load, how many the scored tests
/// kill (a verdict other than a pass), and the others: survivors some input tells apart from
/// the reference (faults the tests miss), and those no input tried does (likely equivalent to
/// the reference).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MutationScore {
    /// The language whose reference was mutated.
    pub language: Language,
    /// Mutants that load (compile, define the entry point).
    pub mutants: u32,
    pub killed: u32,
    /// What each surviving mutant changed, e.g. "line 4: `<` → `<=`", for those not known
    /// to be equivalent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub survivors: Vec<String>,
    /// Survivors that no input intake tried (the dataset's unscored inputs, inputs generated
    /// at them) tells apart from the reference: likely equivalent. Looked for only in suites
    /// under the target.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub equivalent: Vec<String>,
}

impl MutationScore {
    /// Killed share of the mutants not found equivalent; `None` without one.
    pub fn score(&self) -> Option<f64> {
        let counted = self.mutants - self.equivalent.len() as u32;
        (counted > 0).then(|| f64::from(self.killed) / f64::from(counted))
    }
}

/// A task of the pool. Unknown keys are rejected, here and in every nested object.
// Task files are written by hand as well as by `pool import`: a misspelt optional key would
// otherwise leave its field at the default without a word.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Task {
    pub format_version: u32,
    /// Stable, readable id, e.g. `humaneval/12` or `translate/humaneval/12/python-java`.
    pub id: String,
    /// Bumped whenever the task's content changes.
    pub version: u32,
    pub category: Category,
    pub tier: Tier,
    pub factors: IntakeFactors,
    pub source: Source,
    /// The task in each language it is offered in.
    pub variants: BTreeMap<Language, Variant>,
    pub tests: Vec<TestCase>,
    #[serde(default, skip_serializing_if = "Comparator::is_exact")]
    pub comparator: Comparator,
    #[serde(default, skip_serializing_if = "is_default")]
    pub category_data: CategoryData,
    #[serde(default, skip_serializing_if = "is_default")]
    pub limits: LimitOverrides,
    #[serde(default, skip_serializing_if = "is_default")]
    pub calibration: Calibration,
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

impl Task {
    /// The task's family: the source problem it derives from, shared by all of its
    /// categories and languages (`humaneval/96` for the completion, fix, translations, tests
    /// and documentation tasks built from HumanEval/96). Scores resample families, not tasks,
    /// because the tasks of one family succeed or fail together.
    pub fn family(&self) -> String {
        self.source.family()
    }

    /// The tests that apply to `language`, in order, with their index in `tests`.
    pub fn tests_for(&self, language: Language) -> impl Iterator<Item = (usize, &TestCase)> {
        self.tests
            .iter()
            .enumerate()
            .filter(move |(_, t)| t.applies_to(language))
    }

    /// The comparator for a test: its own, or the task's.
    pub fn comparator_for<'a>(&'a self, test: &'a TestCase) -> &'a Comparator {
        test.comparator.as_ref().unwrap_or(&self.comparator)
    }
}

#[cfg(test)]
mod tests {
    use super::Source;

    fn family(dataset: &str, upstream_id: &str) -> String {
        Source {
            dataset: dataset.into(),
            upstream_id: upstream_id.into(),
            license: "MIT".into(),
        }
        .family()
    }

    #[test]
    fn republished_problems_share_their_family() {
        assert_eq!(family("humaneval", "HumanEval/96"), "humaneval/96");
        assert_eq!(family("humanevalpack", "Python/96"), "humaneval/96");
        assert_eq!(family("mbpp", "mbpp/12"), "mbpp/12");
        assert_eq!(family("mbppplus", "Mbpp/12"), "mbpp/12");
        assert_eq!(family("classeval", "ClassEval_7"), "classeval/7");
        assert_eq!(family("quixbugs", "bitcount"), "quixbugs/bitcount");
        assert_eq!(
            family("humanevalpack", "Python/x"),
            "humanevalpack/Python/x"
        );
        assert_ne!(
            family("humaneval", "HumanEval/9"),
            family("humaneval", "HumanEval/96")
        );
    }
}
