//! What the command line prints on standard output, for a reader that may stop early.
//!
//! `println!` panics when standard output is a pipe whose reader has gone (`consilium verify
//! FILE | head -2`). The command's reports are written through [`outln!`] and [`out!`]
//! instead: when the reader has gone, the process ends quietly with status 141, what a shell
//! reports for a program ended by `SIGPIPE` (as `cat` or `grep` would be). Every command prints
//! after its work, so what it did stays done; what it did not print is lost with the reader
//! (`judge add`'s token, shown once: rotate the judge for a new one). Any other write error is
//! reported on standard error with status 1.

use std::io::{self, Write};

/// The status a shell reports for a program ended by `SIGPIPE` (128 + 13).
pub const READER_GONE: i32 = 141;

/// Writes `args` to standard output; ends the process when the reader has gone.
pub fn write(args: std::fmt::Arguments<'_>) {
    let result = {
        let mut stdout = io::stdout().lock();
        stdout.write_fmt(args).and_then(|()| stdout.flush())
    };
    if let Err(e) = result {
        std::process::exit(exit_status(&e));
    }
}

/// The process's status after a failed write to standard output.
fn exit_status(e: &io::Error) -> i32 {
    if e.kind() == io::ErrorKind::BrokenPipe {
        READER_GONE
    } else {
        eprintln!("consilium: cannot write to standard output: {e}");
        1
    }
}

/// `print!` for the command line's reports: see the module.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::cli::out::write(format_args!($($arg)*)) };
}

/// `println!` for the command line's reports: see the module.
#[macro_export]
macro_rules! outln {
    () => { $crate::cli::out::write(format_args!("\n")) };
    ($($arg:tt)*) => {
        $crate::cli::out::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gone_reader_ends_quietly_with_the_sigpipe_status_and_other_errors_with_1() {
        assert_eq!(
            exit_status(&io::Error::from(io::ErrorKind::BrokenPipe)),
            141
        );
        assert_eq!(exit_status(&io::Error::from(io::ErrorKind::StorageFull)), 1);
        assert_eq!(exit_status(&io::Error::other("disk on fire")), 1);
    }
}
