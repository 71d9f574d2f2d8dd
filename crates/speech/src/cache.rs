//! Rendered phrases, kept so that a repeated phrase ("check", "Springer
//! Felix drei") plays without waiting for the synthesiser.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::PathBuf;

use crate::error::SpeechError;
use crate::voice::Audio;

/// An in-memory cache, least recently used out first, bounded by the bytes
/// of its samples; optionally backed by a directory that survives restarts.
#[derive(Debug)]
pub struct PhraseCache {
    max_bytes: usize,
    bytes: usize,
    clock: u64,
    entries: HashMap<String, (Audio, u64)>,
    by_age: BTreeMap<u64, String>,
    dir: Option<PathBuf>,
}

impl PhraseCache {
    pub fn new(max_bytes: usize) -> Self {
        PhraseCache { max_bytes, bytes: 0, clock: 0, entries: HashMap::new(), by_age: BTreeMap::new(), dir: None }
    }

    /// Also keeps every phrase as a WAV file in `dir` (created if missing).
    pub fn with_dir(self, dir: impl Into<PathBuf>) -> Result<Self, SpeechError> {
        let dir = dir.into();
        fs::create_dir_all(&dir).map_err(SpeechError::io(&dir))?;
        Ok(PhraseCache { dir: Some(dir), ..self })
    }

    pub fn get(&mut self, key: &str) -> Option<Audio> {
        if let Some((audio, age)) = self.entries.get_mut(key) {
            self.clock += 1;
            self.by_age.remove(age);
            *age = self.clock;
            self.by_age.insert(self.clock, key.to_owned());
            return Some(audio.clone());
        }
        let audio = self.read_disk(key)?;
        self.remember(key.to_owned(), audio.clone());
        Some(audio)
    }

    pub fn put(&mut self, key: String, audio: Audio) {
        // The disk copy is a convenience: a full disk must not stop speech.
        if let Some((wav, txt)) = self.disk_paths(&key) {
            let _ = fs::write(&txt, &key);
            let _ = fs::File::create(&wav).map_err(SpeechError::io(&wav)).and_then(|f| audio.write_wav(f));
        }
        self.remember(key, audio);
    }

    /// Forgets what is in memory (the disk copy stays).
    pub fn clear(&mut self) {
        self.entries.clear();
        self.by_age.clear();
        self.bytes = 0;
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Bytes of samples held in memory.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    fn remember(&mut self, key: String, audio: Audio) {
        if audio.bytes() > self.max_bytes {
            return;
        }
        if let Some((old, age)) = self.entries.remove(&key) {
            self.bytes -= old.bytes();
            self.by_age.remove(&age);
        }
        while self.bytes + audio.bytes() > self.max_bytes {
            let Some((_, oldest)) = self.by_age.pop_first() else { break };
            if let Some((old, _)) = self.entries.remove(&oldest) {
                self.bytes -= old.bytes();
            }
        }
        self.clock += 1;
        self.bytes += audio.bytes();
        self.by_age.insert(self.clock, key.clone());
        self.entries.insert(key, (audio, self.clock));
    }

    /// The WAV and its key, named by a stable hash of the key; the key is
    /// stored beside it so a hash collision is a miss, not a wrong phrase.
    fn disk_paths(&self, key: &str) -> Option<(PathBuf, PathBuf)> {
        let dir = self.dir.as_ref()?;
        let name = format!("{:016x}", fnv1a(key.as_bytes()));
        Some((dir.join(format!("{name}.wav")), dir.join(format!("{name}.txt"))))
    }

    fn read_disk(&self, key: &str) -> Option<Audio> {
        let (wav, txt) = self.disk_paths(key)?;
        if fs::read_to_string(txt).ok()? != key {
            return None;
        }
        Audio::read_wav(&fs::read(wav).ok()?).ok()
    }
}

/// FNV-1a, 64 bits: stable across Rust versions, unlike `DefaultHasher`.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn audio(len: usize, value: i16) -> Audio {
        Audio { sample_rate: 22050, samples: vec![value; len].into() }
    }

    #[test]
    fn evicts_the_least_recently_used_when_over_budget() {
        let mut cache = PhraseCache::new(300);
        cache.put("a".into(), audio(50, 1));
        cache.put("b".into(), audio(50, 2));
        cache.put("c".into(), audio(50, 3));
        assert!(cache.get("a").is_some(), "a is now the most recent");
        cache.put("d".into(), audio(50, 4));
        assert!(cache.get("b").is_none(), "b was the least recently used");
        assert_eq!(cache.len(), 3);
        assert_eq!(cache.bytes(), 300);
        assert_eq!(cache.get("d"), Some(audio(50, 4)));
    }

    #[test]
    fn a_phrase_larger_than_the_budget_is_not_kept_in_memory() {
        let mut cache = PhraseCache::new(10);
        cache.put("big".into(), audio(100, 1));
        assert!(cache.is_empty());
    }

    #[test]
    fn the_disk_copy_survives_a_new_cache() {
        let dir = std::env::temp_dir().join(format!("tactus-speech-cache-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        PhraseCache::new(1 << 20).with_dir(&dir).unwrap().put("voice\u{1f}text".into(), audio(10, 7));
        let mut fresh = PhraseCache::new(1 << 20).with_dir(&dir).unwrap();
        assert_eq!(fresh.get("voice\u{1f}text"), Some(audio(10, 7)));
        assert_eq!(fresh.get("voice\u{1f}other"), None);
        fs::remove_dir_all(&dir).unwrap();
    }
}
