//! One engine process: starting it, writing lines to it, reading its lines
//! with bounded memory, and ending it (`quit`, then SIGTERM, then SIGKILL).

use std::io;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};

use crate::protocol;

/// Longest line kept from an engine; a longer one is dropped whole (a cut
/// `info` line could mislead), so an engine writing without line breaks
/// cannot grow memory.
pub const MAX_LINE: usize = 16 * 1024;

/// Reads lines of at most `max` bytes; longer lines are skipped. Cancel
/// safe: a partial line stays in the reader if the future is dropped.
#[derive(Debug)]
pub struct BoundedLines<R> {
    reader: BufReader<R>,
    line: Vec<u8>,
    too_long: bool,
    max: usize,
    skipped: u64,
}

impl<R: AsyncRead + Unpin> BoundedLines<R> {
    pub fn new(reader: R, max: usize) -> Self {
        BoundedLines {
            reader: BufReader::with_capacity(8 * 1024, reader),
            line: Vec::new(),
            too_long: false,
            max,
            skipped: 0,
        }
    }

    /// How many over-long lines were skipped so far.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// The next line without its line break; `None` at the end of input.
    /// Invalid UTF-8 is replaced, never an error.
    pub async fn next_line(&mut self) -> io::Result<Option<String>> {
        loop {
            let buf = self.reader.fill_buf().await?;
            if buf.is_empty() {
                if self.line.is_empty() || self.too_long {
                    self.line.clear();
                    self.too_long = false;
                    return Ok(None);
                }
                return Ok(Some(self.take_line()));
            }
            let (chunk, ends_line) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (&buf[..i], true),
                None => (buf, false),
            };
            if !self.too_long {
                if self.line.len() + chunk.len() <= self.max {
                    self.line.extend_from_slice(chunk);
                } else {
                    self.too_long = true;
                    self.line.clear();
                }
            }
            let used = chunk.len() + usize::from(ends_line);
            self.reader.consume(used);
            if ends_line {
                if self.too_long {
                    self.too_long = false;
                    self.skipped += 1;
                    continue;
                }
                return Ok(Some(self.take_line()));
            }
        }
    }

    fn take_line(&mut self) -> String {
        if self.line.last() == Some(&b'\r') {
            self.line.pop();
        }
        let text = String::from_utf8_lossy(&self.line).into_owned();
        self.line.clear();
        text
    }
}

/// How an engine process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// It left after `quit` (or had already left).
    Quit(ExitStatus),
    /// It ignored `quit` and left on SIGTERM.
    Terminated(ExitStatus),
    /// It ignored SIGTERM too and was killed.
    Killed(ExitStatus),
}

/// A running engine: its standard input and output. Dropping it kills the
/// process.
///
/// Its standard error goes to the log, read while its output is read and
/// while it ends: no task of its own outlives the process, and an engine
/// that writes to it is never held up while it is asked or searches.
#[derive(Debug)]
pub struct EngineProcess {
    program: PathBuf,
    child: Child,
    stdin: ChildStdin,
    stdout: BoundedLines<ChildStdout>,
    /// Until the engine closes it.
    stderr: Option<BoundedLines<ChildStderr>>,
}

impl EngineProcess {
    /// Starts `program` with `args`.
    pub fn spawn(program: &Path, args: &[String]) -> io::Result<EngineProcess> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()?;
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(io::Error::other("engine pipes missing"));
        };
        Ok(EngineProcess {
            program: program.to_owned(),
            child,
            stdin,
            stdout: BoundedLines::new(stdout, MAX_LINE),
            stderr: Some(BoundedLines::new(stderr, MAX_LINE)),
        })
    }

    /// Waits for the process to exit, reading its standard error meanwhile
    /// (an engine held up writing it would never exit). Cancel safe.
    async fn wait(&mut self) -> io::Result<ExitStatus> {
        let EngineProcess { program, child, stderr, .. } = self;
        loop {
            let Some(errors) = stderr else { return child.wait().await };
            tokio::select! {
                status = child.wait() => return status,
                line = errors.next_line() => logged(program, line, stderr),
            }
        }
    }

    pub fn program(&self) -> &Path {
        &self.program
    }

    /// The process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// Writes one command as one line. Not cancel safe: a write cut short
    /// leaves half a line (the [`Engine`](crate::Engine) then restarts).
    pub async fn send(&mut self, command: &protocol::Command) -> io::Result<()> {
        let mut text = command.to_string();
        tracing::trace!(engine = %self.program.display(), "> {text}");
        text.push('\n');
        self.stdin.write_all(text.as_bytes()).await?;
        self.stdin.flush().await
    }

    /// The engine's next line; `None` when it closed its output (exited).
    /// Cancel safe.
    pub async fn next_line(&mut self) -> io::Result<Option<String>> {
        let EngineProcess { program, stdout, stderr, .. } = self;
        let line = loop {
            let Some(errors) = stderr else { break stdout.next_line().await? };
            tokio::select! {
                line = stdout.next_line() => break line?,
                line = errors.next_line() => logged(program, line, stderr),
            }
        };
        if let Some(l) = &line {
            tracing::trace!(engine = %self.program.display(), "< {l}");
        }
        Ok(line)
    }

    /// Over-long lines the engine wrote that were skipped.
    pub fn skipped_lines(&self) -> u64 {
        self.stdout.skipped()
    }

    /// Whether the process has exited, without waiting.
    pub fn exit_status(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// SIGKILL now and reap.
    pub async fn kill(mut self) -> io::Result<ExitStatus> {
        self.child.start_kill().ok();
        self.wait().await
    }

    /// `quit`, and waits `grace` for the engine to leave; then SIGTERM and
    /// `grace` again; then SIGKILL.
    pub async fn shutdown(mut self, grace: Duration) -> io::Result<Ended> {
        if let Some(status) = self.exit_status() {
            return Ok(Ended::Quit(status));
        }
        // A write error means the engine already closed its input: go on.
        let _ = self.send(&protocol::Command::Quit).await;
        let _ = self.stdin.shutdown().await;
        if let Ok(status) = tokio::time::timeout(grace, self.wait()).await {
            return Ok(Ended::Quit(status?));
        }
        if let Some(pid) =
            self.child.id().and_then(|id| i32::try_from(id).ok()).and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
            if let Ok(status) = tokio::time::timeout(grace, self.wait()).await {
                return Ok(Ended::Terminated(status?));
            }
        }
        self.child.start_kill().ok();
        Ok(Ended::Killed(self.wait().await?))
    }
}

/// A line of an engine's standard error, logged; at its end (or a failed
/// read) it is no longer read.
fn logged(program: &Path, line: io::Result<Option<String>>, stderr: &mut Option<BoundedLines<ChildStderr>>) {
    match line {
        Ok(Some(text)) => tracing::debug!(engine = %program.display(), "stderr: {text}"),
        Ok(None) | Err(_) => *stderr = None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines_of(bytes: &[u8], max: usize) -> (Vec<String>, u64) {
        let mut reader = BoundedLines::new(bytes, max);
        let mut out = Vec::new();
        while let Some(l) = reader.next_line().await.unwrap() {
            out.push(l);
        }
        (out, reader.skipped())
    }

    /// An engine that writes far more to its standard error than a pipe
    /// holds (64 KiB) before its first line still gets to it, and then
    /// leaves on `quit`: its standard error is read as its output is, and
    /// as it ends, by the process itself — no task of its own that could
    /// outlive it.
    #[tokio::test]
    async fn standard_error_is_read_with_the_output_on_no_task_of_its_own() {
        let script = "head -c 262144 /dev/zero | tr '\\0' x >&2; echo >&2; echo uciok; \
                      read quit; head -c 262144 /dev/zero | tr '\\0' y >&2";
        let mut engine = EngineProcess::spawn(Path::new("sh"), &["-c".into(), script.into()]).unwrap();
        assert_eq!(tokio::runtime::Handle::current().metrics().num_alive_tasks(), 0, "no task drains it");
        let first = tokio::time::timeout(Duration::from_secs(20), engine.next_line()).await;
        assert_eq!(first.expect("its first line, past its standard error").unwrap().as_deref(), Some("uciok"));
        let ended = engine.shutdown(Duration::from_secs(20)).await.unwrap();
        assert!(matches!(ended, Ended::Quit(status) if status.success()), "{ended:?}");
    }

    #[tokio::test]
    async fn splits_lines_and_drops_long_ones() {
        let (lines, skipped) = lines_of(b"uciok\r\nreadyok\nxxxxxxxxxxxxxxxxxxxx\nbestmove e2e4", 16).await;
        assert_eq!(lines, vec!["uciok", "readyok", "bestmove e2e4"]);
        assert_eq!(skipped, 1);
        let (lines, _) = lines_of(b"\xff\xfe ok\n", 10).await;
        assert_eq!(lines, vec!["\u{fffd}\u{fffd} ok"]);
        // An endless line at the end of input is dropped too.
        let (lines, _) = lines_of(&[b'a'; 100], 10).await;
        assert!(lines.is_empty());
    }

    #[tokio::test]
    async fn a_line_longer_than_the_read_buffer_is_kept_when_it_fits() {
        let long = "x".repeat(20_000);
        let (lines, skipped) = lines_of(format!("{long}\nok\n").as_bytes(), 32 * 1024).await;
        assert_eq!(lines, vec![long, "ok".to_owned()]);
        assert_eq!(skipped, 0);
    }
}
