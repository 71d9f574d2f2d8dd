//! The file descriptors of a line, non-blocking: a serial device opened at
//! 9600 8N1 raw, or a pseudo-terminal pair whose client end is linked at a
//! path. Nothing here ever waits for the other end.

use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use rustix::fs::{Mode, OFlags};
use rustix::termios::{ControlModes, OptionalActions, QueueSelector};

use super::EarlyInput;
use crate::protocol::BAUD;

/// A pty's client end holds at most this many unread bytes: more waits in
/// the outbox, where a newer message can still replace it.
const PTY_UNREAD: u64 = 256;

/// An open line.
pub(super) enum Conn {
    /// A serial device: what is written sits in its driver's queue.
    Device(OwnedFd),
    /// A pty: what is written sits unread at the client's end.
    Pty(Pty),
}

impl Conn {
    pub(super) fn open_device(path: &Path, early: EarlyInput) -> io::Result<Conn> {
        let fd =
            rustix::fs::open(path, OFlags::RDWR | OFlags::NOCTTY | OFlags::NONBLOCK | OFlags::CLOEXEC, Mode::empty())?;
        let mut t = rustix::termios::tcgetattr(&fd)
            .map_err(|e| io::Error::new(e.kind(), format!("{} is not a serial line ({e})", path.display())))?;
        t.make_raw();
        t.set_speed(BAUD)?;
        t.control_modes |= ControlModes::CLOCAL | ControlModes::CREAD;
        rustix::termios::tcsetattr(&fd, OptionalActions::Now, &t)?;
        // What waits to go out from before is no one's now; what came in
        // may be requests to answer.
        let stale = match early {
            EarlyInput::Read => QueueSelector::OFlush,
            EarlyInput::Dropped => QueueSelector::IOFlush,
        };
        rustix::termios::tcflush(&fd, stale)?;
        Ok(Conn::Device(fd))
    }

    /// What is read from and written to.
    pub(super) fn fd(&self) -> &OwnedFd {
        match self {
            Conn::Device(fd) => fd,
            Conn::Pty(pty) => &pty.master,
        }
    }

    /// Whether the line may take more now. A device says so itself (the
    /// fd polls writable); a pty would take 64 KiB the client has not read.
    pub(super) fn takes_more(&self) -> bool {
        match self {
            Conn::Device(_) => true,
            Conn::Pty(pty) => rustix::io::ioctl_fionread(&pty.client).is_ok_and(|n| n < PTY_UNREAD),
        }
    }

    /// Throws away what the client has not read: it is stale.
    pub(super) fn drop_unread(&self) {
        let _ = match self {
            Conn::Device(fd) => rustix::termios::tcflush(fd, QueueSelector::OFlush),
            Conn::Pty(pty) => rustix::termios::tcflush(&pty.client, QueueSelector::IFlush),
        };
    }
}

/// A pty pair made for a client on this machine, its client end linked at
/// a path. The client end stays open here too, so that a client may close
/// and reopen it at will and the master never reads a hang-up; and so that
/// what the client has not read can be measured and thrown away.
pub(super) struct Pty {
    master: OwnedFd,
    client: OwnedFd,
    /// `/dev/pts/N`.
    client_path: PathBuf,
    link: PathBuf,
}

impl Pty {
    /// A new pair, linked at `link` in place of a link there before (ours,
    /// from a pty that is gone). Anything else at `link` is left alone.
    pub(super) fn new(link: &Path) -> io::Result<Pty> {
        use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
        let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC)?;
        grantpt(&master)?;
        unlockpt(&master)?;
        rustix::fs::fcntl_setfl(&master, OFlags::NONBLOCK)?;
        let client_path = PathBuf::from(ptsname(&master, Vec::new())?.into_string().map_err(io::Error::other)?);
        let client = rustix::fs::open(
            &client_path,
            OFlags::RDWR | OFlags::NOCTTY | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        // Raw until the client sets its own mode: no echo of what it is sent.
        let mut t = rustix::termios::tcgetattr(&client)?;
        t.make_raw();
        rustix::termios::tcsetattr(&client, OptionalActions::Now, &t)?;
        let pty = Pty { master, client, client_path, link: link.to_path_buf() };
        pty.put_link()?;
        Ok(pty)
    }

    /// Points the link at this pty, atomically: the path never names a
    /// dead pty once it names this one.
    fn put_link(&self) -> io::Result<()> {
        check_replaceable(&self.link)?;
        let name = self.link.file_name().ok_or_else(|| io::Error::other("no file name"))?;
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(".tactus-pty");
        let tmp = self.link.with_file_name(tmp_name);
        if std::fs::symlink_metadata(&tmp).is_ok_and(|m| m.file_type().is_symlink()) {
            std::fs::remove_file(&tmp)?;
        }
        std::os::unix::fs::symlink(&self.client_path, &tmp)?;
        std::fs::rename(&tmp, &self.link).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    }

    /// The link is still ours; put back if it was removed.
    pub(super) fn keep_link(&self) {
        if std::fs::read_link(&self.link).is_ok_and(|to| to == self.client_path) {
            return;
        }
        let _ = self.put_link();
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        // Only our own link: never what someone put there since.
        if std::fs::read_link(&self.link).is_ok_and(|to| to == self.client_path) {
            let _ = std::fs::remove_file(&self.link);
        }
    }
}

/// A pty link may replace nothing, or a link to a pty (ours from before,
/// its pty gone): never a file, a directory or another link, whose owner
/// would lose it.
pub(super) fn check_replaceable(link: &Path) -> io::Result<()> {
    let meta = match std::fs::symlink_metadata(link) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
        Ok(meta) => meta,
    };
    let what = if meta.file_type().is_symlink() {
        match std::fs::read_link(link) {
            Ok(to) if to.starts_with("/dev/pts/") => return Ok(()),
            Ok(to) => format!("a link to {}", to.display()),
            Err(e) => return Err(e),
        }
    } else if meta.is_dir() {
        "a directory".to_string()
    } else if meta.is_file() {
        "a regular file".to_string()
    } else {
        "not a serial device".to_string()
    };
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!(
            "{} is {what}, not a serial line; it is left as it is (remove it, or choose another path)",
            link.display()
        ),
    ))
}
