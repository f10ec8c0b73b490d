//! The bundled replay files under `replays/`: pinned by a committed manifest
//! (`tests/data/bundled-replays.manifest`: content hash and line count of every file), parsed
//! line by line, and loaded through the replay adapter. These tests need nothing beside the
//! repository.
//!
//! The two `#[ignore]`d tests rebuild the replays from the public sets: `regenerate` writes
//! `replays/` and the manifest, `committed_replays_match_what_the_builder_produces` checks the
//! committed files equal a fresh build. They read `$PASSRATE_SHARED_DATA`, else
//! `../shared/data` beside the repository, laid out as below (each directory with the
//! upstream LICENSE, and `mxeval/NOTICE`; the commits are in `replays/README.md`):
//!
//! - `samples/reflexion-gpt4/humaneval_py_simple_gpt-4.jsonl`: noahshinn/reflexion @ 218cf0ef,
//!   `programming_runs/root/simple_human_eval_py_logging/` (MIT);
//! - `samples/codet-codegen16b/`: microsoft/CodeT @ 35f54d60, `CodeT/data/generated_data/
//!   HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_code_solution.jsonl` and
//!   `CodeT/data/dataset/HumanEval_for_code_generation.jsonl` (MIT);
//! - `classeval/model_output_v1.0.0/<model>_class_H_greedy.predict.jsonl`: FudanSELab/ClassEval
//!   @ eaeac44d, `output/model_output_v1.0.0/<model>_class_H_greedy.json` reduced to one
//!   `{"task_id", "predict"}` object per line (MIT);
//! - `mxeval/mbxp/{mbpp_release_v1,mbjsp_release_v1.2,mbjp_release_v1.2}.jsonl` and
//!   `mxeval/mbxp/examples/{mbpp,mbjsp,mbjp}_samples.jsonl`: amazon-science/mxeval @ e09974f9,
//!   `data/mbxp/` (repository Apache-2.0, MBXP data CC-BY-4.0 in `mbxp/LICENSE`).
//!
//! ```sh
//! cargo test -p passrate-models --test bundled_replays -- --ignored regenerate
//! cargo test -p passrate-models --test bundled_replays -- --ignored committed_replays_match
//! ```

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail, ensure};
use passrate_models::adapter::replay::{ReplayAdapter, ReplayLine};
use passrate_models::{AdapterConfig, ModelsConfig};
use passrate_schema::Language;
use serde_json::{Value, json};

/// Files above this size are committed gzipped.
const GZIP_ABOVE: usize = 256 * 1024;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn replays_dir() -> PathBuf {
    workspace().join("replays")
}

fn data_dir() -> PathBuf {
    std::env::var_os("PASSRATE_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared/data"))
}

fn read_jsonl(path: &Path) -> Result<Vec<Value>> {
    let text = fs_err::read_to_string(path)?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).with_context(|| format!("{}:{}", path.display(), i + 1))
        })
        .collect()
}

fn str_field<'a>(value: &'a Value, key: &str) -> Result<&'a str> {
    value[key]
        .as_str()
        .with_context(|| format!("missing string field `{key}` in {value}"))
}

/// `HumanEval/12` → `humaneval/12`, `MBJP/7` → `mbpp/7`, `ClassEval_3` → `classeval/3`.
fn pool_id(upstream: &str) -> Result<String> {
    let (prefix, number) = upstream
        .rsplit_once(['/', '_'])
        .with_context(|| format!("unexpected upstream id {upstream}"))?;
    let number: u32 = number
        .parse()
        .with_context(|| format!("unexpected upstream id {upstream}"))?;
    let dataset = match prefix {
        "HumanEval" => "humaneval",
        "MBPP" | "MBJP" | "MBJSP" => "mbpp",
        "ClassEval" => "classeval",
        _ => bail!("unexpected upstream id {upstream}"),
    };
    Ok(format!("{dataset}/{number}"))
}

fn line(task: String, language: Language, text: String, upstream: Value) -> ReplayLine {
    ReplayLine {
        task,
        language: Some(language),
        sample_index: Some(0),
        text,
        usage: None,
        finish_reason: None,
        upstream: Some(upstream),
    }
}

/// One replay model's answers, as `replays/<dir>/<stem>.jsonl[.gz]`.
struct Built {
    dir: &'static str,
    stem: &'static str,
    lines: Vec<ReplayLine>,
}

impl Built {
    fn jsonl(&self) -> String {
        let mut text = String::new();
        for line in &self.lines {
            text.push_str(&serde_json::to_string(line).expect("lines serialise"));
            text.push('\n');
        }
        text
    }
}

/// Licence and NOTICE files to copy: path under `replays/` → bytes.
type Licenses = BTreeMap<PathBuf, Vec<u8>>;

fn build(data: &Path) -> Result<(Vec<Built>, Licenses)> {
    let mut models = Vec::new();
    let mut licenses = BTreeMap::new();
    let mut copy = |from: &str, to: &str| -> Result<()> {
        licenses.insert(PathBuf::from(to), fs_err::read(data.join(from))?);
        Ok(())
    };

    // GPT-4, Reflexion's "simple" strategy: one full function per HumanEval problem.
    let file = "humaneval_py_simple_gpt-4.jsonl";
    let mut lines = Vec::new();
    for record in read_jsonl(&data.join("samples/reflexion-gpt4").join(file))? {
        let id = str_field(&record, "task_id")?;
        lines.push(line(
            pool_id(id)?,
            Language::Python,
            str_field(&record, "solution")?.to_string(),
            json!({"source": "noahshinn/reflexion", "file": file, "id": id}),
        ));
    }
    models.push(Built {
        dir: "reflexion-gpt4",
        stem: "gpt-4-2023",
        lines,
    });
    copy("samples/reflexion-gpt4/LICENSE", "reflexion-gpt4/LICENSE")?;

    // CodeGen-16B via CodeT: completions keyed by CodeT's prompt; the answer is that prompt
    // plus the first of the 100 samples (the model continued the prompt).
    let codet = data.join("samples/codet-codegen16b");
    let mut ids = HashMap::new();
    for record in read_jsonl(&codet.join("HumanEval_for_code_generation.jsonl"))? {
        ids.insert(
            str_field(&record, "prompt")?.to_string(),
            str_field(&record, "task_id")?.to_string(),
        );
    }
    let file = "HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_code_solution.jsonl";
    let mut lines = Vec::new();
    for record in read_jsonl(&codet.join(file))? {
        let prompt = str_field(&record, "prompt")?;
        let id = ids
            .get(prompt)
            .with_context(|| format!("a CodeT prompt matches no task: {prompt:.60}"))?;
        let first = record["samples"][0]
            .as_str()
            .context("a CodeT record without samples")?;
        lines.push(line(
            pool_id(id)?,
            Language::Python,
            format!("{prompt}{first}"),
            json!({"source": "microsoft/CodeT", "file": file, "id": id, "sample": 0}),
        ));
    }
    models.push(Built {
        dir: "codet-codegen16b",
        stem: "codegen-16b",
        lines,
    });
    copy(
        "samples/codet-codegen16b/LICENSE",
        "codet-codegen16b/LICENSE",
    )?;

    // ClassEval: the five models' greedy outputs, raw (fences, echoed prompts and all).
    for (upstream, stem) in [
        ("GPT-4-Turbo", "gpt-4-turbo"),
        ("GPT-3.5-Turbo", "gpt-3.5-turbo"),
        (
            "deepseek-coder-6.7b-instruct",
            "deepseek-coder-6.7b-instruct",
        ),
        ("CodeLlama-13b-Instruct-hf", "codellama-13b-instruct"),
        ("WizardCoder-15B-V1.0", "wizardcoder-15b-v1.0"),
    ] {
        let file = format!("{upstream}_class_H_greedy.predict.jsonl");
        let mut lines = Vec::new();
        for record in read_jsonl(&data.join("classeval/model_output_v1.0.0").join(&file))? {
            let id = str_field(&record, "task_id")?;
            let predict = record["predict"][0]
                .as_str()
                .with_context(|| format!("{id}: no prediction"))?;
            lines.push(line(
                pool_id(id)?,
                Language::Python,
                predict.to_string(),
                json!({"source": "FudanSELab/ClassEval", "file": file, "id": id}),
            ));
        }
        models.push(Built {
            dir: "classeval",
            stem,
            lines,
        });
    }
    copy("classeval/LICENSE", "classeval/LICENSE")?;

    // MBXP example completions (one unnamed model, three languages): prompt + completion.
    let mbxp = data.join("mxeval/mbxp");
    let mut lines = Vec::new();
    for (release, samples, language) in [
        (
            "mbpp_release_v1.jsonl",
            "mbpp_samples.jsonl",
            Language::Python,
        ),
        (
            "mbjsp_release_v1.2.jsonl",
            "mbjsp_samples.jsonl",
            Language::Javascript,
        ),
        (
            "mbjp_release_v1.2.jsonl",
            "mbjp_samples.jsonl",
            Language::Java,
        ),
    ] {
        let mut prompts = HashMap::new();
        for record in read_jsonl(&mbxp.join(release))? {
            prompts.insert(
                str_field(&record, "task_id")?.to_string(),
                str_field(&record, "prompt")?.to_string(),
            );
        }
        for record in read_jsonl(&mbxp.join("examples").join(samples))? {
            let id = str_field(&record, "task_id")?;
            ensure!(
                Language::parse(str_field(&record, "language")?) == Some(language),
                "{samples}: {id} is not in {language}"
            );
            let prompt = prompts
                .get(id)
                .with_context(|| format!("{samples}: {id} has no prompt in {release}"))?;
            lines.push(line(
                pool_id(id)?,
                language,
                format!("{prompt}{}", str_field(&record, "completion")?),
                json!({"source": "amazon-science/mxeval", "file": format!("examples/{samples}"), "id": id}),
            ));
        }
    }
    models.push(Built {
        dir: "mxeval",
        stem: "mbxp-example",
        lines,
    });
    copy("mxeval/LICENSE", "mxeval/LICENSE")?;
    copy("mxeval/NOTICE", "mxeval/NOTICE")?;
    copy("mxeval/mbxp/LICENSE", "mxeval/LICENSE.mbxp-data")?;

    Ok((models, licenses))
}

fn file_name(model: &Built, text: &str) -> PathBuf {
    let ext = if text.len() > GZIP_ABOVE {
        "jsonl.gz"
    } else {
        "jsonl"
    };
    PathBuf::from(model.dir).join(format!("{}.{ext}", model.stem))
}

fn gunzip(bytes: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes).read_to_end(&mut out)?;
    Ok(out)
}

/// Every data file under `replays/` (README and models.toml are written by hand).
fn committed_files() -> Result<BTreeSet<PathBuf>> {
    let mut files = BTreeSet::new();
    let root = replays_dir();
    for dir in fs_err::read_dir(&root)? {
        let dir = dir?.path();
        if !dir.is_dir() {
            continue;
        }
        for file in fs_err::read_dir(&dir)? {
            files.insert(file?.path().strip_prefix(&root)?.to_path_buf());
        }
    }
    Ok(files)
}

fn manifest_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bundled-replays.manifest")
}

/// One manifest line: `<blake3 of the content> <lines> <path under replays/>`, the content of
/// a gzipped file being its decompressed bytes.
fn manifest_line(path: &Path, content: &[u8]) -> String {
    let lines = content.iter().filter(|&&b| b == b'\n').count();
    format!(
        "{} {lines} {}\n",
        blake3::hash(content).to_hex(),
        path.display()
    )
}

/// The manifest of what the builder makes, sorted by path.
fn built_manifest(models: &[Built], licenses: &Licenses) -> String {
    let mut lines = BTreeMap::new();
    for model in models {
        let text = model.jsonl();
        let name = file_name(model, &text);
        lines.insert(name.clone(), manifest_line(&name, text.as_bytes()));
    }
    for (path, bytes) in licenses {
        lines.insert(path.clone(), manifest_line(path, bytes));
    }
    lines.into_values().collect()
}

/// A committed file's content (decompressed when gzipped).
fn committed_content(name: &Path) -> Result<Vec<u8>> {
    let bytes = fs_err::read(replays_dir().join(name))?;
    if name.extension().is_some_and(|e| e == "gz") {
        // Content, not compressed bytes: those depend on the deflate backend.
        gunzip(&bytes)
    } else {
        Ok(bytes)
    }
}

fn is_replay(name: &Path) -> bool {
    let name = name.to_string_lossy();
    name.ends_with(".jsonl") || name.ends_with(".jsonl.gz")
}

#[test]
#[ignore = "writes replays/; run to regenerate after a data or format change"]
fn regenerate() -> Result<()> {
    let (models, licenses) = build(&data_dir())?;
    let root = replays_dir();
    for model in &models {
        let text = model.jsonl();
        let path = root.join(file_name(model, &text));
        fs_err::create_dir_all(path.parent().unwrap())?;
        if path.extension().is_some_and(|e| e == "gz") {
            // mtime 0 and no file name: the same input gives the same bytes.
            let mut encoder = flate2::GzBuilder::new()
                .mtime(0)
                .write(Vec::new(), flate2::Compression::best());
            encoder.write_all(text.as_bytes())?;
            fs_err::write(&path, encoder.finish()?)?;
        } else {
            fs_err::write(&path, text)?;
        }
    }
    fs_err::create_dir_all(manifest_path().parent().unwrap())?;
    fs_err::write(manifest_path(), built_manifest(&models, &licenses))?;
    for (path, bytes) in licenses {
        fs_err::write(root.join(path), bytes)?;
    }
    Ok(())
}

#[test]
#[ignore = "needs the public sets (../shared/data or $PASSRATE_SHARED_DATA), not in the repository"]
fn committed_replays_match_what_the_builder_produces() -> Result<()> {
    let data = data_dir();
    ensure!(
        data.join("SOURCES.json").exists(),
        "the source data is not at {} (set PASSRATE_SHARED_DATA; see this file's header)",
        data.display()
    );
    let (models, licenses) = build(&data)?;
    let mut expected = BTreeSet::new();
    for model in &models {
        let text = model.jsonl();
        let name = file_name(model, &text);
        ensure!(
            committed_content(&name)? == text.as_bytes(),
            "{} differs from the build; run the ignored `regenerate` test",
            name.display()
        );
        expected.insert(name);
    }
    for (path, bytes) in &licenses {
        ensure!(
            fs_err::read(replays_dir().join(path))? == *bytes,
            "{} differs from its source",
            path.display()
        );
        expected.insert(path.clone());
    }
    let committed = committed_files()?;
    ensure!(
        committed == expected,
        "replays/ holds {:?} but the build makes {:?}",
        committed.difference(&expected).collect::<Vec<_>>(),
        expected.difference(&committed).collect::<Vec<_>>()
    );
    ensure!(
        fs_err::read_to_string(manifest_path())? == built_manifest(&models, &licenses),
        "{} differs from the build; run the ignored `regenerate` test",
        manifest_path().display()
    );
    Ok(())
}

/// Without the sources: every data file under `replays/` is in the manifest with the same
/// content hash and line count (and nothing else is there), and every replay line parses,
/// names a language and sample 0, and answers a unit no other line answers.
#[test]
fn committed_replays_match_their_manifest() -> Result<()> {
    let manifest = fs_err::read_to_string(manifest_path())?;
    let mut listed = BTreeMap::new();
    for line in manifest.lines() {
        let path = line
            .splitn(3, ' ')
            .nth(2)
            .with_context(|| format!("malformed manifest line {line:?}"))?;
        ensure!(
            listed.insert(PathBuf::from(path), line).is_none(),
            "{path} is listed twice"
        );
    }
    let committed = committed_files()?;
    let listed_paths: BTreeSet<PathBuf> = listed.keys().cloned().collect();
    ensure!(
        committed == listed_paths,
        "replays/ holds {:?} that the manifest does not list, and lacks {:?}",
        committed.difference(&listed_paths).collect::<Vec<_>>(),
        listed_paths.difference(&committed).collect::<Vec<_>>()
    );
    ensure!(
        listed.keys().filter(|p| is_replay(p)).count() == 8,
        "the manifest lists {} replay files, not 8",
        listed.keys().filter(|p| is_replay(p)).count()
    );
    for (path, line) in &listed {
        let content = committed_content(path)?;
        let actual = manifest_line(path, &content);
        ensure!(
            actual.trim_end() == *line,
            "{} does not match the manifest (committed {}, listed {line}); replays/ is \
             generated: run the ignored `regenerate` test instead of editing it",
            path.display(),
            actual.trim_end()
        );
        if !is_replay(path) {
            continue;
        }
        let text = String::from_utf8(content)
            .with_context(|| format!("{} is not UTF-8", path.display()))?;
        let mut units = BTreeSet::new();
        for (i, raw) in text.lines().enumerate() {
            let at = || format!("{}:{}", path.display(), i + 1);
            let parsed: ReplayLine = serde_json::from_str(raw).with_context(at)?;
            let language = parsed
                .language
                .with_context(|| format!("{}: no language", at()))?;
            ensure!(
                parsed.sample_index == Some(0),
                "{}: sample {:?}",
                at(),
                parsed.sample_index
            );
            ensure!(!parsed.text.is_empty(), "{}: empty answer", at());
            ensure!(
                units.insert((parsed.task.clone(), language)),
                "{}: a second answer for {} in {language}",
                at(),
                parsed.task
            );
        }
        ensure!(!units.is_empty(), "{} holds no answer", path.display());
    }
    Ok(())
}

#[test]
fn the_bundled_models_toml_loads_every_replay_with_its_coverage() -> Result<()> {
    let config = ModelsConfig::load(&replays_dir().join("models.toml"))?;
    let expected: BTreeMap<&str, usize> = [
        ("gpt-4-2023", 164),
        ("codegen-16b", 164),
        ("gpt-4-turbo", 100),
        ("gpt-3.5-turbo", 100),
        ("deepseek-coder-6.7b-instruct", 100),
        ("codellama-13b-instruct", 100),
        ("wizardcoder-15b-v1.0", 100),
        ("mbxp-example", 974 + 966 + 966),
    ]
    .into_iter()
    .collect();
    let ids: BTreeSet<&str> = config.models.iter().map(|m| m.id.as_str()).collect();
    ensure!(ids == expected.keys().copied().collect(), "models: {ids:?}");
    for model in &config.models {
        let AdapterConfig::Replay { file } = &model.adapter else {
            bail!("{} is not a replay", model.id);
        };
        let replay = ReplayAdapter::load(file)?;
        ensure!(
            replay.len() == expected[model.id.as_str()],
            "{}: {} answers",
            model.id,
            replay.len()
        );
    }
    // Spot checks of the id mapping and the text.
    let load = |id: &str| -> Result<ReplayAdapter> {
        let AdapterConfig::Replay { file } = &config.get(id).context("model")?.adapter else {
            bail!("not a replay")
        };
        Ok(ReplayAdapter::load(file)?)
    };
    let gpt4 = load("gpt-4-2023")?;
    let answer = gpt4
        .lookup("humaneval/0", Language::Python, 0)
        .context("humaneval/0")?;
    ensure!(answer.text.contains("def has_close_elements"));
    ensure!(gpt4.lookup("humaneval/163", Language::Python, 0).is_some());
    ensure!(gpt4.lookup("humaneval/0", Language::Python, 1).is_none());
    let codegen = load("codegen-16b")?;
    let answer = codegen
        .lookup("humaneval/0", Language::Python, 0)
        .context("codegen")?;
    ensure!(
        answer
            .text
            .starts_with("from typing import List\n\n\ndef has_close_elements(")
    );
    let turbo = load("gpt-4-turbo")?;
    ensure!(
        turbo
            .lookup("classeval/0", Language::Python, 0)
            .context("classeval/0")?
            .text
            .contains("class AccessGatewayFilter")
    );
    let mbxp = load("mbxp-example")?;
    let java = mbxp
        .lookup("mbpp/2", Language::Java, 0)
        .context("mbpp/2 java")?;
    ensure!(java.text.contains("class SimilarElements") && java.text.trim_end().ends_with('}'));
    ensure!(mbxp.lookup("mbpp/2", Language::Javascript, 0).is_some());
    ensure!(mbxp.lookup("mbpp/3", Language::Python, 0).is_some());
    Ok(())
}
