//! A stranger on the hall's broker, with no hall key: records what goes by
//! and publishes it all again later, as a replay attack would.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rumqttc::v5::mqttbytes::QoS;
use rumqttc::v5::mqttbytes::v5::Packet;
use rumqttc::v5::{Client, Event, MqttOptions};

/// A bound for failure only.
const WAIT: Duration = Duration::from_secs(60);

/// Messages as they went by: topic and payload.
pub type Recorded = Vec<(String, Vec<u8>)>;

/// Records every message on `filter` that goes by.
pub struct Recorder {
    heard: Arc<Mutex<Recorded>>,
    client: Client,
}

impl Recorder {
    /// Subscribed once it returns.
    pub fn start(port: u16, filter: &str) -> Recorder {
        let (client, mut connection) = Client::new(MqttOptions::new("stranger-recorder", "127.0.0.1", port), 100);
        client.subscribe(filter, QoS::AtLeastOnce).unwrap();
        let heard: Arc<Mutex<Recorded>> = Arc::default();
        let (ready, subscribed) = std::sync::mpsc::channel();
        let kept = heard.clone();
        std::thread::spawn(move || {
            for event in connection.iter() {
                match event {
                    Ok(Event::Incoming(Packet::SubAck(_))) => {
                        let _ = ready.send(());
                    }
                    Ok(Event::Incoming(Packet::Publish(p))) => {
                        let topic = String::from_utf8_lossy(&p.topic).into_owned();
                        kept.lock().unwrap().push((topic, p.payload.to_vec()));
                    }
                    Ok(_) => {}
                    Err(_) => break,
                }
            }
        });
        subscribed.recv_timeout(WAIT).expect("the recorder subscribed");
        Recorder { heard, client }
    }

    /// Everything recorded so far.
    pub fn recorded(&self) -> Recorded {
        self.heard.lock().unwrap().clone()
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        let _ = self.client.disconnect();
    }
}

/// Publishes every message of `recorded` again, a board's state retained
/// (so that it stays on the broker for whoever comes next), and waits for
/// the broker to take them all.
pub fn play_back(port: u16, recorded: &[(String, Vec<u8>)]) {
    let (client, mut connection) = Client::new(MqttOptions::new("stranger-player", "127.0.0.1", port), 10);
    let (acked, all) = std::sync::mpsc::channel();
    let n = recorded.len();
    let driver = std::thread::spawn(move || {
        let mut count = 0;
        for event in connection.iter() {
            match event {
                Ok(Event::Incoming(Packet::PubAck(_))) => {
                    count += 1;
                    if count == n {
                        let _ = acked.send(());
                    }
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
    });
    for (topic, payload) in recorded {
        client.publish(topic.clone(), QoS::AtLeastOnce, topic.ends_with("/state"), payload.clone()).unwrap();
    }
    all.recv_timeout(WAIT).expect("the broker took every message played back");
    client.disconnect().unwrap();
    let _ = driver.join();
}
