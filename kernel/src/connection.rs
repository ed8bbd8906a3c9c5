//! The connection file a Jupyter client writes before starting the kernel: transport, address,
//! the five ports and the signing key.

use serde_json::Value;
use std::path::Path;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectionInfo {
    pub transport: String,
    pub ip: String,
    pub shell_port: u16,
    pub iopub_port: u16,
    pub stdin_port: u16,
    pub control_port: u16,
    pub hb_port: u16,
    pub key: String,
    pub signature_scheme: String,
}

impl ConnectionInfo {
    pub fn read(path: &Path) -> Result<ConnectionInfo, String> {
        // A connection file is a few hundred bytes: anything past 1 MiB is not one.
        let text = passlab::files::read_bytes(path, 1 << 20)
            .map_err(|e| e.to_string())
            .and_then(|b| String::from_utf8(b).map_err(|e| e.to_string()))
            .map_err(|e| format!("cannot read the connection file {}: {e}", path.display()))?;
        ConnectionInfo::parse(&text)
            .map_err(|e| format!("bad connection file {}: {e}", path.display()))
    }

    pub fn parse(text: &str) -> Result<ConnectionInfo, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let s = |k: &str, default: &str| -> String {
            v.get(k)
                .and_then(Value::as_str)
                .unwrap_or(default)
                .to_string()
        };
        let port = |k: &str| -> Result<u16, String> {
            v.get(k)
                .and_then(Value::as_u64)
                .and_then(|p| u16::try_from(p).ok())
                .ok_or_else(|| format!("`{k}` is missing or not a port number"))
        };
        let info = ConnectionInfo {
            transport: s("transport", "tcp"),
            ip: s("ip", "127.0.0.1"),
            shell_port: port("shell_port")?,
            iopub_port: port("iopub_port")?,
            stdin_port: port("stdin_port")?,
            control_port: port("control_port")?,
            hb_port: port("hb_port")?,
            key: s("key", ""),
            signature_scheme: s("signature_scheme", "hmac-sha256"),
        };
        if !info.key.is_empty() && info.signature_scheme != "hmac-sha256" {
            return Err(format!(
                "signature scheme `{}` is not supported (only hmac-sha256)",
                info.signature_scheme
            ));
        }
        if info.transport != "tcp" && info.transport != "ipc" {
            return Err(format!("transport `{}` is not supported", info.transport));
        }
        Ok(info)
    }

    /// The ZeroMQ endpoint of one port (`tcp://127.0.0.1:5555`, or `ipc://path-5` as
    /// jupyter_client names IPC sockets).
    pub fn endpoint(&self, port: u16) -> String {
        match self.transport.as_str() {
            "ipc" => format!("ipc://{}-{port}", self.ip),
            _ => format!("tcp://{}:{port}", self.ip),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_jupyter_client_file() {
        let c = ConnectionInfo::parse(
            r#"{"shell_port": 1, "iopub_port": 2, "stdin_port": 3, "control_port": 4,
                "hb_port": 5, "ip": "127.0.0.1", "key": "k", "transport": "tcp",
                "signature_scheme": "hmac-sha256", "kernel_name": "passlab"}"#,
        )
        .unwrap();
        assert_eq!(c.endpoint(c.iopub_port), "tcp://127.0.0.1:2");
        assert!(ConnectionInfo::parse(r#"{"shell_port": 1}"#)
            .unwrap_err()
            .contains("iopub_port"));
        let md5 = r#"{"shell_port": 1, "iopub_port": 2, "stdin_port": 3, "control_port": 4,
                "hb_port": 5, "key": "k", "signature_scheme": "hmac-md5"}"#;
        assert!(ConnectionInfo::parse(md5).unwrap_err().contains("hmac-md5"));
    }
}
