//! Work under way in this process, by id: a chat turn per session, an eval run per result id.
//! One piece of work per id at a time; each can be asked to stop; the id is released when the
//! work's [`Claim`] drops, however the work ends (a panic included), so an id cannot stay taken
//! by work that is gone, nor be taken twice while the stopped work is still finishing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::watch;

#[derive(Clone, Default)]
pub struct Running(Arc<Mutex<HashMap<String, watch::Sender<bool>>>>);

/// Holds an id for its work; dropping it releases the id.
pub struct Claim {
    running: Running,
    id: String,
}

impl Running {
    /// Claims `id` for new work; `None` when work under that id is under way. The receiver
    /// turns true when someone asks the work to stop.
    pub fn claim(&self, id: &str) -> Option<(watch::Receiver<bool>, Claim)> {
        let mut running = self.0.lock().expect("running-work lock");
        if running.contains_key(id) {
            return None;
        }
        let (stop, stopped) = watch::channel(false);
        running.insert(id.to_string(), stop);
        let claim = Claim {
            running: self.clone(),
            id: id.to_string(),
        };
        Some((stopped, claim))
    }

    /// Asks the work under `id` to stop; false when none is under way to hear it.
    pub fn stop(&self, id: &str) -> bool {
        match self.0.lock().expect("running-work lock").get(id) {
            Some(stop) => stop.send(true).is_ok(),
            None => false,
        }
    }

    /// Asks all the work under way to stop.
    pub fn stop_all(&self) {
        for stop in self.0.lock().expect("running-work lock").values() {
            let _ = stop.send(true);
        }
    }

    /// Whether no work is under way.
    pub fn is_idle(&self) -> bool {
        self.0.lock().expect("running-work lock").is_empty()
    }

    pub fn is_running(&self, id: &str) -> bool {
        self.0.lock().expect("running-work lock").contains_key(id)
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        self.running.0.lock().expect("running-work lock").remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::Running;

    #[test]
    fn an_id_is_held_until_its_claim_drops_and_a_stop_reaches_the_work() {
        let running = Running::default();
        let (stopped, claim) = running.claim("s1").unwrap();
        assert!(running.claim("s1").is_none());
        assert!(running.claim("s2").is_some());
        assert!(running.stop("s1"));
        assert!(*stopped.borrow());
        // Stopped but not yet finished: the id stays taken.
        assert!(running.claim("s1").is_none());
        drop(claim);
        assert!(!running.is_running("s1"));
        assert!(!running.stop("s1"));
        assert!(running.claim("s1").is_some());
    }
}
