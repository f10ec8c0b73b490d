//! Issue 21, point 7: an answer without code is `no_code` in every language, with or without
//! the task's prompt to continue (a Python prompt alone is already a valid function), while
//! completion-style continuations of the prompt stay compliant.

use passrate_extract::{ExtractRequest, Extraction, Origin, extract};
use passrate_schema::{Language, Reason};

const PYTHON_PROMPT: &str = "from typing import List\n\n\ndef f(xs: List[int]) -> int:\n    \"\"\" Return the sum of xs.\n    >>> f([1, 2])\n    3\n    \"\"\"\n";

const JAVASCRIPT_PROMPT: &str =
    "/**\n * Return the sum of xs.\n *\n * > f([1, 2])\n * 3\n */\nfunction f(xs) {\n";

const JAVA_PROMPT: &str = "import java.io.*;\nimport java.lang.*;\nimport java.util.*;\n\n\nclass F {\n    /**\n     * Return the sum of xs.\n     *\n     * > f([1, 2])\n     * 3\n     */\n    public static int f(List<Integer> xs) {\n";

const CLASS_PROMPT: &str = "class Stack:\n    \"\"\"\n    A stack of items.\n    \"\"\"\n\n    def __init__(self):\n        \"\"\"\n        An empty stack.\n        \"\"\"\n        self.items = []\n\n    def push(self, x):\n        \"\"\"\n        Put x on top.\n        \"\"\"\n\n    def pop(self):\n        \"\"\"\n        Take the top item.\n        \"\"\"\n";

const PROSE: [&str; 5] = [
    "I cannot help with that.",
    "I'm sorry, but I can't assist with this request.\n",
    "Here is how it works: iterate over the list and add every number to a running total, then return the total.\n",
    "The function should return the sum of the numbers.\n\nIt is a simple loop over the list.\n",
    "    I am not able to write this function for you.\n",
];

fn request(language: Language, prompt: Option<&str>) -> ExtractRequest {
    let mut r = ExtractRequest::new(language, "f");
    if language == Language::Java {
        r.class_name = Some("F".into());
    }
    r.prompt = prompt.map(str::to_owned);
    r
}

fn prompt_of(language: Language) -> &'static str {
    match language {
        Language::Python => PYTHON_PROMPT,
        Language::Javascript => JAVASCRIPT_PROMPT,
        Language::Java => JAVA_PROMPT,
    }
}

fn describe(e: &Extraction) -> String {
    format!(
        "compliant {} reason {:?} origin {:?} detail {:?}",
        e.compliant, e.reason, e.origin, e.detail
    )
}

#[test]
fn prose_is_no_code_even_when_the_prompt_is_a_function() {
    for language in Language::ALL {
        for prompt in [None, Some(prompt_of(language))] {
            for prose in PROSE {
                let e = extract(&request(language, prompt), prose.as_bytes());
                assert_eq!(
                    e.reason,
                    Some(Reason::NoCode),
                    "{language}, prompt {}: {prose:?} gave {}",
                    prompt.is_some(),
                    describe(&e)
                );
                assert!(!e.compliant);
            }
        }
    }
}

#[test]
fn an_empty_answer_to_a_class_skeleton_is_no_code() {
    // The skeleton's methods hold only docstrings: valid Python, but not the model's code.
    let mut r = ExtractRequest::new(Language::Python, "Stack");
    r.class_name = Some("Stack".into());
    r.prompt = Some(CLASS_PROMPT.into());
    for answer in ["", "\n\n   \n", "I could not complete the class Stack.\n"] {
        let e = extract(&r, answer.as_bytes());
        assert_eq!(
            e.reason,
            Some(Reason::NoCode),
            "{answer:?}: {}",
            describe(&e)
        );
    }
}

#[test]
fn a_completion_that_only_comments_is_no_code() {
    let answers = [
        (Language::Python, "    # TODO: implement\n"),
        (Language::Javascript, "    // TODO\n}\n"),
        (Language::Java, "        // TODO\n    }\n}\n"),
    ];
    for (language, answer) in answers {
        let e = extract(
            &request(language, Some(prompt_of(language))),
            answer.as_bytes(),
        );
        assert_eq!(
            e.reason,
            Some(Reason::NoCode),
            "{language}: {answer:?} gave {}",
            describe(&e)
        );
    }
}

#[test]
fn codegen_style_body_continuations_stay_compliant() {
    let answers = [
        (
            Language::Python,
            "    total = 0\n    for x in xs:\n        total += x\n    return total\n\n",
        ),
        // CodeGen often goes on past the function with its own test code.
        (
            Language::Python,
            "    return sum(xs)\n\n\ndef check(candidate):\n    assert candidate([1]) == 1\n\nif __name__ == '__main__':\n    check(f)\n",
        ),
        (
            Language::Python,
            "    # add them up\n    return sum(xs)  # the sum\n",
        ),
        (
            Language::Javascript,
            "    let total = 0;\n    for (const x of xs) {\n        total += x;\n    }\n    return total;\n}",
        ),
        (
            Language::Java,
            "        int total = 0;\n        for (int x : xs) {\n            total += x;\n        }\n        return total;\n    }\n}",
        ),
    ];
    for (language, answer) in answers {
        let e = extract(
            &request(language, Some(prompt_of(language))),
            answer.as_bytes(),
        );
        assert!(e.compliant, "{language}: {answer:?} gave {}", describe(&e));
        assert_eq!(e.origin, Origin::PromptContinuation);
    }
}

#[test]
fn a_class_skeleton_continued_with_method_bodies_stays_compliant() {
    let mut r = ExtractRequest::new(Language::Python, "Stack");
    r.class_name = Some("Stack".into());
    // The answer repeats the prompt and fills in the bodies after the docstrings.
    let filled = CLASS_PROMPT
        .replace(
            "Put x on top.\n        \"\"\"\n",
            "Put x on top.\n        \"\"\"\n        self.items.append(x)\n",
        )
        .replace(
            "Take the top item.\n        \"\"\"\n",
            "Take the top item.\n        \"\"\"\n        return self.items.pop()\n",
        );
    r.prompt = Some(CLASS_PROMPT.into());
    let e = extract(&r, filled.as_bytes());
    assert!(e.compliant, "{}", describe(&e));
}

#[test]
fn a_continuation_followed_by_an_explanation_keeps_only_the_code() {
    // Like an explanation after a fenced block: the body is the model's code, the prose after
    // the function is not part of it.
    let answer =
        "    return sum(xs)\n\nThis function returns the sum of the list by calling the builtin.\n";
    let e = extract(
        &request(Language::Python, Some(PYTHON_PROMPT)),
        answer.as_bytes(),
    );
    assert!(e.compliant, "{}", describe(&e));
    assert!(e.code.contains("return sum(xs)"), "{}", e.code);
    assert!(!e.code.contains("This function"), "{}", e.code);
}
