//! Compiles `loa.proto` with protox (pure Rust, so no system `protoc`) and generates the tonic
//! client and server.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=loa.proto");
    let fds = protox::compile(["loa.proto"], ["."])?;
    tonic_prost_build::configure().compile_fds(fds)?;
    Ok(())
}
